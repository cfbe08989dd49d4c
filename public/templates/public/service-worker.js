/*
 * The site's service worker (served at /service-worker.js, scope /): shows a rider's alerts.
 * The push payload is JSON: title, body, url (the map at the trail), tag (one per trail, so a
 * trail's notifications replace each other). Tapping a notification opens the map there: in a
 * window of the site already open, else a new one. Text stays text: a notification shows no
 * markup.
 */
self.addEventListener("install", function () {
  self.skipWaiting();
});

self.addEventListener("activate", function (event) {
  event.waitUntil(self.clients.claim());
});

self.addEventListener("push", function (event) {
  var message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch (error) {
    message = { title: event.data ? event.data.text() : "" };
  }
  event.waitUntil(
    self.registration.showNotification(message.title || "", {
      body: message.body || "",
      tag: message.tag || undefined,
      renotify: Boolean(message.tag),
      icon: "{{ icon }}",
      data: { url: message.url || "/", event: message.event || null },
    })
  );
});

// Tapping a notification: the map at its trail, in a window of the site already open (the
// map's own first), else in a new one.
self.openNotification = function (notification) {
  notification.close();
  var url = new URL((notification.data && notification.data.url) || "/", self.location.origin);
  return self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (windows) {
    var open = windows.filter(function (client) {
      return new URL(client.url).pathname === url.pathname;
    })[0] || windows[0];
    if (open && open.navigate) {
      return open.navigate(url.href).then(function (client) {
        return client && client.focus ? client.focus().catch(function () { return client; }) : client;
      });
    }
    return self.clients.openWindow(url.href);
  });
};

self.addEventListener("notificationclick", function (event) {
  event.waitUntil(self.openNotification(event.notification));
});
