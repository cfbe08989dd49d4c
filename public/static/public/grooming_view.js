/*
 * The map's Grooming view: trails coloured by the time since they were groomed, in Nordic
 * Pulse's buckets (today, 1-3 days, 4-6, 7-10, 11-14, older or never), each bucket with its
 * own dash pattern too, so the view reads without colour; a legend; "Groomed for classic
 * 2 h ago" in each trail's popup and list entry. Buckets come from /feeds/<id>/grooming.json,
 * counted in the system's time zone. Where the system shows groomers live, the machines
 * grooming now are drawn and moved by the live stream's `groomers` events; while the stream is
 * down, from /feeds/<id>/groomers.json at the map's polling pace.
 *
 * Loaded after map.js, which hands over its map and hooks as window.trailMap. `?view=grooming`
 * opens the map (or an embed) in this view.
 */
(function () {
  "use strict";

  var api = window.trailMap;
  if (!api) return;
  var script = document.currentScript;
  var t = api.texts;
  var REFRESH_SECONDS = 60;
  var MIN_REFETCH_SECONDS = 10;
  // Colour, dash pattern and weight per bucket; every colour gives at least 4.5:1 on white.
  var BUCKETS = [
    { key: "today", label: t.bucket_today, colour: "#0b6e2f", dash: null, weight: 6 },
    { key: "1-3", label: t.bucket_1_3, colour: "#1558b0", dash: "16 5", weight: 5 },
    { key: "4-6", label: t.bucket_4_6, colour: "#6a1b9a", dash: "10 6", weight: 5 },
    { key: "7-10", label: t.bucket_7_10, colour: "#9a4a00", dash: "6 6", weight: 4 },
    { key: "11-14", label: t.bucket_11_14, colour: "#b3261e", dash: "2 6", weight: 4 },
    { key: "older", label: t.bucket_older, colour: "#4b5563", dash: "1 9", weight: 3 },
  ];
  // Lifts are never groomed: in this view a white core in their dark casing, a cable apart
  // from every bucket's colour and from the status view's colours.
  var NOT_GROOMABLE = { key: "lift", label: t.not_groomable, colour: "#ffffff", dash: null, weight: 3 };
  var byKey = {};
  BUCKETS.forEach(function (bucket) { byKey[bucket.key] = bucket; });

  var view = new URLSearchParams(location.search).get("view") === "grooming" ? "grooming" : "status";
  var groomed = {}; // trailId -> {lastGroomed, conditionText, bucket}
  var fetchedAt = 0;

  function fetchJson(url) {
    return fetch(url, { headers: { Accept: "application/json" } }).then(function (answer) {
      if (!answer.ok) throw new Error(answer.status);
      return answer.json();
    });
  }

  function load() {
    fetchedAt = Date.now();
    return fetchJson(script.dataset.groomingUrl).then(function (answer) {
      groomed = {};
      answer.trails.forEach(function (trail) { groomed[trail.trailId] = trail; });
      if (view === "grooming") api.redraw();
    }).catch(function () { /* the status view stays right; the next refresh tries again */ });
  }

  function bucketOf(trailId) {
    var known = groomed[trailId];
    return byKey[known ? known.bucket : "older"];
  }

  // The drawn trails in this view's styles, or back in the status view's.
  function styleLines() {
    var lines = api.lines();
    var lifts = false;
    Object.keys(lines).forEach(function (trailId) {
      lines[trailId].forEach(function (line) {
        if (!line.statusStyle) {
          line.statusStyle = { color: line.options.color, dashArray: line.options.dashArray, weight: line.options.weight };
        }
        var lift = /lift-line/.test(line.options.className || "");
        lifts = lifts || lift;
        var bucket = lift ? NOT_GROOMABLE : bucketOf(trailId);
        line.setStyle(view === "grooming"
          ? { color: bucket.colour, dashArray: bucket.dash, weight: bucket.weight }
          : line.statusStyle);
        var path = line.getElement();
        if (path) path.setAttribute("data-grooming-bucket", view === "grooming" ? bucket.key : "");
      });
    });
    api.map.getContainer().classList.toggle("grooming-view", view === "grooming");
    api.map.getContainer().parentNode.classList.toggle("grooming-view-on", view === "grooming");
    document.body.classList.toggle("grooming-view-page", view === "grooming");
    legend.hidden = view !== "grooming";
    // The lifts' line in the legend only where there are lifts.
    if (lifts) items.appendChild(liftItem);
    else if (liftItem.parentNode) items.removeChild(liftItem);
  }

  // "Groomed for classic 2 h ago" under each trail, in this view.
  api.addDetails(function (properties) {
    if (view !== "grooming" || properties.type === "Lift") return null;
    var known = groomed[properties.trailId];
    var words = known
      ? api.format(t.groomed_ago, { condition: known.conditionText, ago: api.ago(known.lastGroomed) })
      : t.never_groomed;
    var line = api.el("p", "groomed-ago", words);
    line.setAttribute("data-bucket", bucketOf(properties.trailId).key);
    return line;
  });

  // The legend: a line drawn in each bucket's colour and pattern, and its words.
  var legend = api.el("div", "grooming-legend");
  legend.hidden = true;
  legend.appendChild(api.el("h2", null, t.grooming_legend));
  var items = api.el("ul");
  var liftItem = null;
  BUCKETS.concat([NOT_GROOMABLE]).forEach(function (bucket) {
    var item = api.el("li");
    item.setAttribute("data-bucket", bucket.key);
    var svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", "0 0 40 12");
    svg.setAttribute("class", "legend-line");
    svg.setAttribute("aria-hidden", "true");
    if (bucket === NOT_GROOMABLE) {
      var casing = document.createElementNS("http://www.w3.org/2000/svg", "line");
      [["x1", 2], ["y1", 6], ["x2", 38], ["y2", 6], ["stroke", "#1f2937"], ["stroke-width", 8]]
        .forEach(function (pair) { casing.setAttribute(pair[0], pair[1]); });
      svg.appendChild(casing);
    }
    var stroke = document.createElementNS("http://www.w3.org/2000/svg", "line");
    [["x1", 2], ["y1", 6], ["x2", 38], ["y2", 6], ["stroke", bucket.colour],
      ["stroke-width", bucket.weight - 1]].forEach(function (pair) { stroke.setAttribute(pair[0], pair[1]); });
    if (bucket.dash) stroke.setAttribute("stroke-dasharray", bucket.dash);
    svg.appendChild(stroke);
    item.appendChild(svg);
    item.appendChild(document.createTextNode(bucket.label));
    if (bucket === NOT_GROOMABLE) liftItem = item;
    else items.appendChild(item);
  });
  legend.appendChild(items);
  api.map.getContainer().parentNode.appendChild(legend);

  // The two views, as a pair of toggle buttons on the map.
  var Switch = L.Control.extend({
    options: { position: "topright" },
    onAdd: function () {
      var box = api.el("div", "leaflet-bar view-switch");
      box.setAttribute("role", "group");
      box.setAttribute("aria-label", t.map_view);
      [["status", t.view_status], ["grooming", t.view_grooming]].forEach(function (pair) {
        var button = api.el("button", "view-button", pair[1]);
        button.type = "button";
        button.setAttribute("data-view", pair[0]);
        button.setAttribute("aria-pressed", String(view === pair[0]));
        button.addEventListener("click", function () {
          view = pair[0];
          box.querySelectorAll("button").forEach(function (other) {
            other.setAttribute("aria-pressed", String(other === button));
          });
          api.redraw();
          styleLines();
        });
        box.appendChild(button);
      });
      L.DomEvent.disableClickPropagation(box);
      return box;
    },
  });
  new Switch().addTo(api.map);

  document.addEventListener("trailmap:drawn", function () {
    styleLines();
    // A new file may hold new groomings: read them again, at most every few seconds.
    if (Date.now() - fetchedAt > MIN_REFETCH_SECONDS * 1000) load();
  });
  load();
  setInterval(load, REFRESH_SECONDS * 1000);

  // Machines grooming now (only where the system shows them): a marker each, moved as they go.
  var groomersUrl = script.dataset.groomersUrl;
  if (!groomersUrl) return;
  var machines = {};
  function showGroomers(groomers) {
    var seen = {};
    groomers.forEach(function (groomer) {
      seen[groomer.trackerId] = true;
      var at = [groomer.lat, groomer.lng];
      var marker = machines[groomer.trackerId];
      if (marker) {
        marker.setLatLng(at);
        return;
      }
      var label = api.format(t.groomer_now, { name: groomer.name });
      var glyph = api.el("span", "groomer-glyph", "\u2744");
      glyph.setAttribute("aria-hidden", "true");
      var holder = api.el("div");
      holder.appendChild(glyph);
      marker = L.marker(at, {
        icon: L.divIcon({ className: "groomer-marker", html: holder, iconSize: [26, 26] }),
        title: label, alt: label, keyboard: true, zIndexOffset: 1000,
      });
      marker.bindTooltip(api.el("span", null, label));
      marker.on("add", function () {
        marker.getElement().setAttribute("data-tracker-id", groomer.trackerId);
      });
      machines[groomer.trackerId] = marker.addTo(api.map);
    });
    Object.keys(machines).forEach(function (id) {
      if (!seen[id]) {
        machines[id].remove();
        delete machines[id];
      }
    });
  }
  api.onStream("groomers", function (data) { showGroomers(data.groomers || []); });

  // Without the stream (refused, reconnecting, no EventSource) the list is read instead, at the
  // pace the map reads its system; a stream that opens again sends the machines at once.
  var fallback = null;
  function readGroomers() {
    fetchJson(groomersUrl).then(function (answer) {
      showGroomers(answer.groomers);
    }).catch(function () { /* read again at the next turn */ });
  }
  function follow(connection) {
    window.clearInterval(fallback);
    fallback = null;
    if (connection === "live" || connection === "connecting") return;
    readGroomers();
    fallback = window.setInterval(readGroomers, api.pollSeconds * 1000);
  }
  document.addEventListener("trailmap:connection", function (event) { follow(event.detail); });
  follow(api.connection());
})();
