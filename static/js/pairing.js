// The lobby's "Play now" panel: the seek lives as long as this socket (/ws/seek/).
// The server sends JSON frames with the texts already translated (pairing.consumers).
(function () {
  "use strict";
  var panel = document.getElementById("play-now");
  if (!panel) { return; }
  var form = panel.querySelector(".play-now-form");
  var waiting = panel.querySelector(".play-now-waiting");
  var bots = panel.querySelector(".play-now-bots");
  var count = panel.querySelector("[data-testid=play-now-count]");
  var message = panel.querySelector(".play-now-message");
  var socket = null, botsTimer = null, leaving = false;

  function text(name) {
    var t = panel.querySelector("template[data-text=" + name + "]");
    return t ? t.content.textContent.trim() : "";
  }
  function show(isWaiting) {
    form.hidden = isWaiting;
    waiting.hidden = !isWaiting;
    if (!isWaiting) {
      bots.hidden = true;
      count.textContent = "";
      clearTimeout(botsTimer);
    }
  }
  function send(frame) {
    if (socket && socket.readyState === WebSocket.OPEN) { socket.send(JSON.stringify(frame)); }
  }
  function stop() {
    if (socket) { socket.onclose = null; socket.close(); socket = null; }
    show(false);
  }
  function onFrame(event) {
    var frame = JSON.parse(event.data);
    if (frame.type === "waiting") {
      if (frame.text) { count.textContent = frame.text; }
      if (frame.bots_after) {
        clearTimeout(botsTimer);
        botsTimer = setTimeout(function () { bots.hidden = false; }, frame.bots_after * 1000);
      }
    } else if (frame.type === "seated") {
      leaving = true;
      window.location.assign(frame.url);
    } else if (frame.type === "refused") {
      message.textContent = frame.message;
      if (frame.url) {  // he has a seat at another table: take him there
        var link = document.createElement("a");
        link.href = frame.url;
        link.textContent = text("your-table");
        link.setAttribute("data-testid", "play-now-table");
        message.append(" ", link);
      }
      if (!frame.waiting) { stop(); }
    } else if (frame.type === "cancelled") {
      stop();
    }
  }
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    message.textContent = "";
    var data = new FormData(form);
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + window.location.host + "/ws/seek/");
    socket.onmessage = onFrame;
    socket.onopen = function () {
      show(true);
      send({
        action: "seek",
        time_control: data.get("time_control"),
        size: data.get("size"),
        wait: parseInt(data.get("wait"), 10)
      });
    };
    socket.onclose = function () {
      socket = null;
      show(false);
      if (!leaving) { message.textContent = text("closed"); }
    };
  });
  panel.querySelector("[data-action=cancel]").addEventListener("click", function () {
    send({ action: "cancel" });
  });
  panel.querySelector("[data-action=bots]").addEventListener("click", function () {
    send({ action: "bots", level: panel.querySelector("select[name=level]").value });
  });
})();
