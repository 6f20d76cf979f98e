// The step-by-step replay of a finished hand (/hands/<id>/): one step at a time, drawn
// when shown from the steps' data (#replay-steps) into the one frame the page holds, each
// card copied from its <template data-card>. Moved with the buttons marked data-step (one
// step back or on), the arrow keys, and a click on a row of the analysis marked
// data-replay-step (that very step; the analysis panel is swapped in by htmx, so its
// clicks are caught on the document).
(function () {
  "use strict";
  var data = document.getElementById("replay-steps");
  var frame = document.querySelector(".replay-frame");
  var pos = document.querySelector(".replay-position");
  var replay = document.querySelector(".replay");
  if (!data || !frame || !pos) { return; }
  // The page draws the step it was opened at (?move=N); the buttons move on from there.
  var steps = JSON.parse(data.textContent), at = parseInt(frame.dataset.frame, 10) || 0;
  var faces = {};
  document.querySelectorAll("template[data-card]").forEach(function (t) {
    faces[t.dataset.card] = t.content.firstElementChild;
  });
  var noCards = document.querySelector("template[data-text='no-cards']").content;

  function part(root, name) { return root.querySelector("[data-part='" + name + "']"); }
  function cards(codes) {
    return codes ? codes.split(" ").map(function (code) { return faces[code].cloneNode(true); }) : [];
  }
  function draw(step) {
    frame.dataset.frame = at;
    part(frame, "text").textContent = step.text;
    var toMove = part(frame, "to-move");
    toMove.hidden = !step.to_move;
    toMove.querySelector(".muted").textContent = step.to_move;
    var pile = cards(step.pile).map(function (card, k, all) {
      var span = document.createElement("span");
      span.className = k === all.length - 1 ? "pile-card top" : "pile-card";
      span.appendChild(card);
      return span;
    });
    part(frame, "pile").replaceChildren.apply(part(frame, "pile"), pile);
    part(frame, "pile-text").textContent = step.pile_text;
    frame.querySelectorAll("[data-part='hand']").forEach(function (box, seat) {
      var hand = step.hands[seat], beton = part(box, "beton"), shown = cards(hand[0]);
      beton.hidden = !hand[1];
      part(beton, "beton-count").textContent = hand[1];
      if (!shown.length) { shown = [noCards.cloneNode(true)]; }
      part(box, "cards").replaceChildren.apply(part(box, "cards"), shown);
    });
  }
  function show(i) {
    var to = Math.max(0, Math.min(steps.length - 1, i));
    if (to !== at) { at = to; draw(steps[at]); }
    // Counted as the steps are numbered ("0. The deal" is 0 of them), so the two agree.
    pos.textContent = at + " / " + (steps.length - 1);
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
  show(at);
})();
