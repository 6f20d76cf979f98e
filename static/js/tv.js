// Pan TV: move on to the next TV table when this one's match ends. The table's socket
// says so by showing the match's ranking (or its annulment) in the status; after a pause
// to read it, the page loads its channel again, which shows the channel's table of that
// moment. Every half minute it also asks whether its match is still on, in case it missed
// the end (a socket that was down), or, with nothing on, whether a match started.
(function () {
  "use strict";
  var page = document.querySelector("[data-tv-current]");
  if (!page) { return; }
  var shown = page.dataset.tv || "";
  var PAUSE_MS = 6000;
  var CHECK_MS = 30000;
  var ending = false;
  var leaving = false;

  function moveOn() {
    if (leaving) { return; }
    leaving = true;
    window.location.reload();
  }

  function matchEnded() {
    return !!document.querySelector('#status-line [data-testid="ranking"], #status-line [data-testid="annulled"]');
  }

  document.addEventListener("htmx:wsAfterMessage", function () {
    if (!ending && matchEnded()) {
      ending = true;
      document.documentElement.dataset.tvMovingOn = "1";
      setTimeout(moveOn, PAUSE_MS);
    }
  });

  // A better match starting elsewhere does not cut the one being watched: the page moves
  // on only when its own match is over (or, showing nothing, when one is on).
  // A channel of one speed asks for its own next table.
  var asked = new URLSearchParams();
  if (page.dataset.tvSpeed) { asked.set("speed", page.dataset.tvSpeed); }
  if (shown) { asked.set("table", shown); }
  var check = page.dataset.tvCurrent + (asked.toString() ? "?" + asked.toString() : "");
  setInterval(function () {
    fetch(check, { headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (answer) {
        if (!answer) { return; }
        if (shown ? !answer.shown_live : answer.table) { moveOn(); }
      })
      .catch(function () { /* the next check asks again */ });
  }, CHECK_MS);
})();
