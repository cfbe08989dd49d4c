// Rider reports on the status board and the Reports page: re-read every few seconds (a new
// report shows within 5 s), drawn with textContent only (a rider's words are text), and the
// one-tap actions posted in the background. Without script the list and its forms work as
// rendered by the server.
(function () {
  "use strict";
  var POLL_MS = 4000;
  var section = document.getElementById("board-reports");
  if (!section) return;
  var texts = JSON.parse(document.getElementById("report-texts").textContent);
  var list = section.querySelector(".report-list");
  var count = document.getElementById("reports-count");
  var shown = "";
  var markers = null;

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (_, name) {
      return values[name] === undefined ? "" : String(values[name]);
    });
  }

  function csrfToken() {
    var input = document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function button(action, label, className) {
    var node = element("button", className || "", label);
    node.type = "submit";
    node.name = "action";
    node.value = action;
    return node;
  }

  // In the system's zone, named ("11/28/26, 5:03 PM MST"), whatever the phone's zone.
  function localTime(iso) {
    var date = new Date(iso);
    return date.toLocaleString([], {
      year: "2-digit", month: "numeric", day: "numeric", hour: "numeric", minute: "2-digit",
      timeZone: section.dataset.timeZone || undefined, timeZoneName: "short",
    });
  }

  function reportItem(row) {
    var item = element("li", "report");
    item.id = "report-" + row.id;
    item.dataset.id = row.id;
    var head = element("p", "report-head");
    head.appendChild(element("strong", "report-category", row.categoryLabel));
    if (row.trailName) {
      head.appendChild(document.createTextNode(" "));
      head.appendChild(element("span", "report-near",
        fill(texts.near, { metres: row.metres, trail: row.trailName })));
      // A trail that shares its name with another, told apart as the board tells it.
      if (row.trailDetails) head.appendChild(element("span", "report-twin", " (" + row.trailDetails + ")"));
    }
    var time = element("time", "", localTime(row.createdOn));
    time.dateTime = row.createdOn;
    head.appendChild(document.createTextNode(" "));
    head.appendChild(time);
    if (row.count > 1) {
      head.appendChild(element("span", "report-count", fill(texts.reports, { n: row.count })));
    }
    item.appendChild(head);
    if (row.description) item.appendChild(element("p", "report-description", row.description));
    if (row.photoUrl) {
      var link = element("a");
      link.href = row.photoUrl;
      var image = element("img", "report-photo");
      image.src = row.photoUrl;
      image.alt = texts.photo;
      image.loading = "lazy";
      link.appendChild(image);
      item.appendChild(link);
    }
    // Every reporter's address of a grouped report (Administrators only: empty otherwise).
    if (row.emails.length) {
      item.appendChild(element("p", "report-email", fill(texts.from, { email: row.emails.join(", ") })));
    }
    var form = element("form", "report-actions");
    form.method = "post";
    form.action = row.actionUrl;
    var token = element("input");
    token.type = "hidden";
    token.name = "csrfmiddlewaretoken";
    token.value = csrfToken();
    form.appendChild(token);
    var from = element("input");
    from.type = "hidden";
    from.name = "from";
    from.value = section.dataset.from || "page";
    form.appendChild(from);
    if (row.trailName && !row.trailClosed) {
      form.appendChild(button("close", fill(texts.close, { trail: row.trailName }), "tap tap-closed"));
    }
    var notice = element("a", "button", texts.notice);
    notice.href = row.noticeUrl;
    form.appendChild(notice);
    var label = element("label", "report-note", texts.note + " ");
    var note = element("input");
    note.type = "text";
    note.name = "note";
    note.maxLength = 2000;
    label.appendChild(note);
    form.appendChild(label);
    form.appendChild(button("resolved", texts.resolve));
    form.appendChild(button("dismissed", texts.dismiss));
    item.appendChild(form);
    return item;
  }

  function typing() {
    var active = document.activeElement;
    return active && active.name === "note" && list.contains(active) && active.value;
  }

  function draw(body) {
    if (count) {
      count.dataset.count = body.count;
      count.textContent = fill(texts.count, { n: body.count });
    }
    var key = JSON.stringify(body.reports);
    if (key === shown || typing()) return;
    shown = key;
    var fresh = document.createDocumentFragment();
    body.reports.forEach(function (row) { fresh.appendChild(reportItem(row)); });
    if (!body.reports.length) fresh.appendChild(element("li", "report-none", texts.none));
    list.replaceChildren(fresh);
    drawMarkers(body.reports);
  }

  function refresh() {
    if (!section.dataset.url || document.hidden) return;
    fetch(section.dataset.url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (body) { if (body) draw(body); })
      .catch(function () { /* offline: the next pass tries again */ });
  }

  list.addEventListener("submit", function (event) {
    var form = event.target;
    var submitter = event.submitter;
    if (!window.fetch || !submitter) return;
    event.preventDefault();
    var data = new FormData(form);
    data.set("action", submitter.value);
    submitter.disabled = true;
    // getAttribute: the buttons named "action" hide the form's own `action` property.
    fetch(form.getAttribute("action"), {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { Accept: "application/json", "X-CSRFToken": csrfToken() },
    })
      .then(function (response) { return response.json(); })
      .then(function (body) {
        var status = document.getElementById("board-sync");
        if (status) {
          status.hidden = false;
          status.textContent = body.done || body.error.message;
        }
        shown = "";
        if (section.dataset.url) refresh();
        else window.location.reload();
      })
      .catch(function () {
        // No answer the script can read: post the form itself, with the tapped action.
        var chosen = element("input");
        chosen.type = "hidden";
        chosen.name = "action";
        chosen.value = submitter.value;
        form.appendChild(chosen);
        HTMLFormElement.prototype.submit.call(form);
      });
  });

  function drawMarkers(rows) {
    if (!markers) return;
    markers.clearLayers();
    rows.forEach(function (row) {
      L.circleMarker([row.lat, row.lng], { radius: 8, color: "#b00020" })
        .bindTooltip(row.categoryLabel + (row.trailName ? " · " + row.trailName : ""))
        .addTo(markers);
    });
  }

  var mapBox = document.getElementById("reports-map");
  if (mapBox && window.L) {
    var map = window.webappBaseMap(mapBox);
    markers = L.featureGroup().addTo(map);
    var points = Array.prototype.map.call(list.querySelectorAll(".report"), function (item) {
      return [parseFloat(item.dataset.lat), parseFloat(item.dataset.lng)];
    });
    var centre = (mapBox.dataset.centre || "").split(",").map(parseFloat);
    points.forEach(function (point) { L.circleMarker(point, { radius: 8, color: "#b00020" }).addTo(markers); });
    if (points.length) map.fitBounds(L.latLngBounds(points).pad(0.5), { maxZoom: 16 });
    else if (centre.length === 2 && !isNaN(centre[0])) map.setView(centre, 13);
    else map.setView([0, 0], 2);
    if (mapBox.dataset.fileUrl) {
      fetch(mapBox.dataset.fileUrl)
        .then(function (response) { return response.json(); })
        .then(function (file) {
          L.geoJSON(file, {
            filter: function (feature) { return feature.geometry && feature.geometry.type !== "Point"; },
            style: { color: "#555", weight: 2 },
          }).addTo(map);
          markers.bringToFront();
        })
        .catch(function () { /* the reports stay on the plain map */ });
    }
  }

  Array.prototype.forEach.call(list.querySelectorAll("time"), function (time) {
    time.textContent = localTime(time.dateTime);
  });
  window.setInterval(refresh, POLL_MS);
  document.addEventListener("visibilitychange", refresh);
})();
