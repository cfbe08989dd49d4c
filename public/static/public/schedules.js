/*
 * The map's "Scheduled changes": what is closed (or opened) on a schedule now, until when and
 * why, and what is scheduled for the next days, from /feeds/<id>/schedules.json. Separate from
 * map.js: it reads the words from #map-config and fills #scheduled, nothing else. Times are
 * shown in the trail system's zone. Everything is set as text, never parsed as HTML.
 */
(function () {
  "use strict";

  var section = document.getElementById("scheduled");
  if (!section || !window.fetch) return;
  var config = JSON.parse(document.getElementById("map-config").textContent);
  var t = config.texts;
  var REFRESH_MS = Math.max(config.pollSeconds || 60, 60) * 1000;

  function statusLabel(status) {
    return t[String(status).toLowerCase()] || status;
  }

  function formatter(zone) {
    return new Intl.DateTimeFormat(config.language, {
      timeZone: zone,
      weekday: "short",
      day: "numeric",
      month: "short",
      hour: "2-digit",
      minute: "2-digit",
      timeZoneName: "short", // named, as the map's other times: a rider elsewhere reads it right
    });
  }

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (whole, name) {
      return name in values ? values[name] : whole;
    });
  }

  function line(change, format) {
    var status = statusLabel(change.status);
    if (change.activity) status += " (" + change.activity + ")";
    var start = change.startsAt ? format.format(new Date(change.startsAt)) : "";
    var end = change.endsAt ? format.format(new Date(change.endsAt)) : "";
    var text;
    if (change.inEffect) {
      text = end ? fill(t.schedule_until, { status: status, end: end }) : status;
    } else if (end) {
      text = fill(t.schedule_window, { status: status, start: start, end: end });
    } else {
      text = fill(t.schedule_from, { status: status, start: start });
    }
    if (change.repeat === "daily") text += " (" + t.schedule_every_day + ")";
    return text;
  }

  function item(change, format) {
    var li = document.createElement("li");
    li.className = "scheduled-change" + (change.inEffect ? " in-effect" : "");
    li.dataset.status = change.status;
    var names = document.createElement("strong");
    names.textContent = change.trails.map(function (trail) { return trail.name; }).join(", ");
    li.appendChild(names);
    li.appendChild(document.createTextNode(": " + line(change, format)));
    if (change.reason) {
      var reason = document.createElement("span");
      reason.className = "reason";
      reason.textContent = change.reason;
      li.appendChild(reason);
    }
    return li;
  }

  function render(data) {
    var list = section.querySelector("ul");
    var format = formatter(data.timeZone);
    list.replaceChildren.apply(
      list,
      data.schedules.map(function (change) { return item(change, format); })
    );
    section.hidden = data.schedules.length === 0;
  }

  function load() {
    fetch(section.dataset.url, { headers: { Accept: "application/json" } })
      .then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.json();
      })
      .then(render)
      .catch(function () { /* the rest of the map works without it; next refresh retries */ });
  }

  load();
  window.setInterval(load, REFRESH_MS);
})();
