// The step-by-step replay of a finished hand (/hands/<id>/): one frame at a time, with
// the buttons marked data-step (one step back or on), the arrow keys, and a click on a
// row of the analysis marked data-replay-step (that very step; the analysis panel is
// swapped in by htmx, so its clicks are caught on the document).
(function () {
  "use strict";
  var frames = document.querySelectorAll(".replay-frame"), at = 0;
  var pos = document.querySelector(".replay-position");
  var replay = document.querySelector(".replay");
  if (!frames.length || !pos) { return; }
  function show(i) {
    at = Math.max(0, Math.min(frames.length - 1, i));
    frames.forEach(function (f, k) { f.hidden = k !== at; });
    pos.textContent = (at + 1) + " / " + frames.length;
  }
  document.querySelectorAll(".replay-controls [data-step]").forEach(function (b) {
    b.addEventListener("click", function () { show(at + parseInt(b.dataset.step, 10)); });
  });
  document.addEventListener("click", function (e) {
    var row = e.target.closest ? e.target.closest("[data-replay-step]") : null;
    if (!row) { return; }
    show(parseInt(row.dataset.replayStep, 10));
    if (replay) { replay.scrollIntoView({ block: "nearest" }); }
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "ArrowRight") { show(at + 1); }
    if (e.key === "ArrowLeft") { show(at - 1); }
  });
  show(0);
})();
