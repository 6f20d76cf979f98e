// The header's bell (templates/notifications/bell.html): its panel, a <details>, shuts on
// Escape (the focus back on the bell) and on a click anywhere outside it, as a menu does.
(function () {
  "use strict";
  function bell() { return document.getElementById("notification-bell"); }
  document.addEventListener("keydown", function (event) {
    var details = bell();
    if (event.key === "Escape" && details && details.open) {
      details.open = false;
      details.querySelector("summary").focus();
    }
  });
  document.addEventListener("click", function (event) {
    var details = bell();
    if (details && details.open && !details.contains(event.target)) { details.open = false; }
  });
})();
