// The page's own socket of a signed-in user (/ws/me/, templates/social/bar.html): its
// state is kept in data-me-ws, and its htmx events stop at it, so that a page with a
// socket of its own (a table's connection mark, the card animations) hears only that one.
(function () {
  "use strict";

  var states = {
    "htmx:wsConnecting": "connecting",
    "htmx:wsOpen": "open",
    "htmx:wsClose": "closed",
    "htmx:wsError": null,
    "htmx:wsBeforeMessage": null,
    "htmx:wsAfterMessage": null,
  };
  Object.keys(states).forEach(function (type) {
    document.addEventListener(type, function (evt) {
      var el = evt.target;
      if (!el || el.id !== "me-socket") { return; }
      if (states[type]) { el.dataset.meWs = states[type]; }
      evt.stopPropagation();
    }, true);
  });
})();
