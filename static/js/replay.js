// The step-by-step replay of a finished hand (/hands/<id>/): one frame at a time, with
// the buttons marked data-step and the arrow keys.
(function () {
  "use strict";
  var frames = document.querySelectorAll(".replay-frame"), at = 0;
  var pos = document.querySelector(".replay-position");
  if (!frames.length || !pos) { return; }
  function show(i) {
    at = Math.max(0, Math.min(frames.length - 1, i));
    frames.forEach(function (f, k) { f.hidden = k !== at; });
    pos.textContent = (at + 1) + " / " + frames.length;
  }
  document.querySelectorAll("[data-step]").forEach(function (b) {
    b.addEventListener("click", function () { show(at + parseInt(b.dataset.step, 10)); });
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "ArrowRight") { show(at + 1); }
    if (e.key === "ArrowLeft") { show(at - 1); }
  });
  show(0);
})();
