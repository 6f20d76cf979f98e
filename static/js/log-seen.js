// A correspondence table's log: the actions new since the player's last visit stay marked
// when the table's socket draws the log again (the page came with them marked; the
// marker, templates/games/_log_seen.html, says from which action of which hand).
(function () {
  "use strict";

  function mark() {
    var seen = document.getElementById("log-seen");
    var status = document.getElementById("table-status");
    var log = document.getElementById("log-lines");
    if (!seen || !status || !log || status.dataset.hand !== seen.dataset.hand) {
      return;
    }
    var from = parseInt(seen.dataset.from, 10);
    log.querySelectorAll("li[data-n]").forEach(function (item) {
      if (parseInt(item.dataset.n, 10) < from || item.classList.contains("unseen")) {
        return;
      }
      var label = document.createElement("span");
      label.className = "unseen-mark";
      label.textContent = seen.dataset.label;
      item.classList.add("unseen");
      item.setAttribute("data-testid", "unseen-action");
      item.append(" ", label);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var log = document.getElementById("action-log");
    if (!document.getElementById("log-seen") || !log) {
      return;
    }
    mark();
    // The log is swapped whole, or its new lines put in (out of band), by htmx.
    new MutationObserver(mark).observe(log.parentNode, { childList: true, subtree: true });
  });
})();
