// Pan TV: move on to the next TV table when this one's match ends. The table's socket
// says so by showing the match's ranking (or its annulment) in the status; after a pause
// to read it, the page loads /tv/ again, which shows the TV table of that moment. Every
// half minute it also asks which table is on TV, in case it missed the end (a socket
// that was down) or, with nothing on, to show a match that started.
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
    return !!document.querySelector('#table-status [data-testid="ranking"], #table-status [data-testid="annulled"]');
  }

  document.addEventListener("htmx:wsAfterMessage", function () {
    if (!ending && matchEnded()) {
      ending = true;
      document.documentElement.dataset.tvMovingOn = "1";
      setTimeout(moveOn, PAUSE_MS);
    }
  });

  setInterval(function () {
    fetch(page.dataset.tvCurrent, { headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (answer) {
        if (answer && String(answer.table || "") !== shown) { moveOn(); }
      })
      .catch(function () { /* the next check asks again */ });
  }, CHECK_MS);
})();
