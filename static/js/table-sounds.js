// The table's sounds, synthesized with the Web Audio API (nothing is downloaded): your
// turn, a play, a pick-up, a letter, and a tick each second of your own last ten.
// Browsers let a page make sound only after a gesture of the user, so the audio starts
// at the first click or key press. The switch is kept on the account of a signed-in user
// (the form posts to accounts:sounds) and in localStorage for a visitor.
(function () {
  "use strict";

  var STORE_KEY = "pan-sounds";
  var holder = document.querySelector("[data-sound-switch]");
  var button = holder ? holder.querySelector(".sound-switch") : null;
  var signedIn = holder && holder.tagName === "FORM";

  function storedForVisitor() {
    try { return localStorage.getItem(STORE_KEY) !== "off"; } catch (e) { return true; }
  }

  var enabled = holder ? (signedIn ? holder.dataset.sounds === "on" : storedForVisitor()) : false;

  function show() {
    if (!button) { return; }
    button.setAttribute("aria-pressed", enabled ? "true" : "false");
    if (signedIn) { holder.querySelector("[name=sounds_on]").value = enabled ? "0" : "1"; }
  }
  show();

  if (holder) {
    var toggle = function (evt) {
      evt.preventDefault();
      enabled = !enabled;
      show();
      if (enabled) { unlock(); play("turn"); }
      if (!signedIn) {
        try { localStorage.setItem(STORE_KEY, enabled ? "on" : "off"); } catch (e) { /* private mode */ }
        return;
      }
      var data = new FormData(holder);
      data.set("sounds_on", enabled ? "1" : "0");
      fetch(holder.action, {
        method: "POST", body: data, credentials: "same-origin",
        headers: { Accept: "application/json" }
      }).then(function (response) {
        if (!response.ok) { throw new Error(response.status); }
        holder.dataset.sounds = enabled ? "on" : "off";
      }).catch(function () { enabled = !enabled; show(); });
    };
    if (signedIn) { holder.addEventListener("submit", toggle); } else { button.addEventListener("click", toggle); }
  }

  var audio = null;
  function unlock() {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) { return; }
    if (!audio) { audio = new Context(); }
    if (audio.state === "suspended") { audio.resume(); }
  }
  ["pointerdown", "keydown"].forEach(function (name) {
    document.addEventListener(name, function () { if (enabled) { unlock(); } }, { capture: true });
  });

  // One short note: frequency (Hz), start (s from now), length (s), wave, loudness.
  function note(freq, at, length, wave, volume) {
    var t = audio.currentTime + at;
    var osc = audio.createOscillator();
    var gain = audio.createGain();
    osc.type = wave;
    osc.frequency.setValueAtTime(freq, t);
    gain.gain.setValueAtTime(0.0001, t);
    gain.gain.exponentialRampToValueAtTime(volume, t + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + length);
    osc.connect(gain).connect(audio.destination);
    osc.start(t);
    osc.stop(t + length + 0.02);
  }

  var SOUNDS = {
    turn: function () { note(660, 0, 0.14, "sine", 0.25); note(880, 0.12, 0.22, "sine", 0.25); },
    play: function () { note(180, 0, 0.09, "triangle", 0.35); note(1200, 0, 0.03, "square", 0.04); },
    pickup: function () { note(520, 0, 0.07, "triangle", 0.2); note(440, 0.07, 0.07, "triangle", 0.2); note(370, 0.14, 0.1, "triangle", 0.2); },
    letter: function () { note(392, 0, 0.2, "sawtooth", 0.12); note(294, 0.2, 0.35, "sawtooth", 0.12); },
    tick: function () { note(1000, 0, 0.03, "square", 0.06); }
  };

  // The last sound played, for the browser tests (nothing reads it otherwise).
  function play(name) {
    if (!enabled || !audio || audio.state !== "running") { return; }
    SOUNDS[name]();
    document.documentElement.dataset.lastSound = name;
  }

  function lettersCount(text) { return (text || "").replace(/[^A-Za-z]/g, "").length; }

  document.addEventListener("pan:table-changed", function (evt) {
    var before = evt.detail.before;
    var after = evt.detail.after;
    if (before.hand === after.hand) {
      if (after.pileCount > before.pileCount) { play("play"); }
      if (after.pileCount < before.pileCount) { play("pickup"); }
    }
    var gotLetter = Object.keys(after.letters).some(function (seat) {
      return lettersCount(after.letters[seat]) > lettersCount(before.letters[seat]);
    });
    if (gotLetter) { play("letter"); }
    // "Your turn" is shown to the player to move only: a spectator never hears it.
    if (after.yourTurn && !before.yourTurn) { setTimeout(function () { play("turn"); }, 150); }
  });

  document.addEventListener("pan:low-time", function () { play("tick"); });
})();
