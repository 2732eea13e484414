/* SPDX-License-Identifier: MIT */
#include "notes.h"

#include "util.h"

#include <stdio.h>
#include <string.h>

static bool listed(const uint16_t *ports, uint32_t n, uint16_t port)
{
	for (uint32_t i = 0; ports && i < n; i++)
		if (ports[i] == port)
			return true;
	return false;
}

/* "9515 (host_ports, published_ports)" for each pinned port the policy does
 * not list where it must be. */
static void missing_ports(const struct asb_network *net, const uint16_t *want, size_t n_want,
                          bool need_published, char *out, size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < n_want; i++) {
		bool host = listed(net->host_ports, net->n_host_ports, want[i]);
		bool pub = !need_published ||
		           listed(net->published_ports, net->n_published_ports, want[i]);
		if (host && pub)
			continue;
		int k = snprintf(out + used, len - used, "%s%u (%s%s%s)", used ? ", " : "",
		                 (unsigned)want[i], host ? "" : "host_ports",
		                 !host && !pub ? ", " : "", pub ? "" : "published_ports");
		if (k < 0 || (size_t)k >= len - used)
			return;
		used += (size_t)k;
	}
}

int notes_macos(const struct asb_network *net, bool chromium, bool firefox, note_fn add, void *ud)
{
	bool filtered = net->mode == ASB_NET_FILTERED;
	char line[1024];
	int r;

	if ((r = add(ud, "own_sandboxes",
	             "off on macOS (a seatbelt sandbox cannot be entered from inside another): "
	             "Chrome runs with --no-sandbox, Firefox with the MOZ_DISABLE_*_SANDBOX "
	             "variables set here; page content runs with the agent's permissions, "
	             "and this profile still confines it",
	             false)) < 0)
		return r;
	if (chromium &&
	    (r = add(ud, "chrome_flags",
	             "--no-sandbox --remote-debugging-pipe (in CHROME_FLAGS): chromedriver has "
	             "to see --remote-debugging-pipe in the session's arguments, so pass them "
	             "there, not in a wrapper",
	             false)) < 0)
		return r;
	if (firefox && (r = add(ud, "firefox_binary",
	                        "a Nix firefox has no bin/ on macOS: set the driver's binary to "
	                        "<store path>/Applications/Firefox.app/Contents/MacOS/firefox",
	                        false)) < 0)
		return r;

	uint16_t want[4];
	size_t n = 0;
	if (chromium)
		want[n++] = NOTES_CHROMEDRIVER_PORT;
	if (firefox) {
		want[n++] = NOTES_GECKODRIVER_PORT;
		want[n++] = NOTES_MARIONETTE_PORT;
		want[n++] = NOTES_BIDI_PORT;
	}
	char pins[256];
	snprintf(pins, sizeof(pins), "%s%s%s", chromium ? "chromedriver --port=9515" : "",
	         chromium && firefox ? "; " : "",
	         firefox ? "geckodriver --port=4444 --marionette-port=2828 --websocket-port=9222"
	                 : "");
	snprintf(line, sizeof(line),
	         filtered ? "localhost is the host's: pin every port a process inside listens "
	                    "on and list it in both network.published_ports and "
	                    "network.host_ports (random ports do not work): %s, and the app "
	                    "server's"
	                  : "localhost is the host's and only network.host_ports are reachable "
	                    "on it: pin the ports (%s, and the app server's) and list them in "
	                    "host_ports",
	         pins);
	if ((r = add(ud, "driver_ports", line, false)) < 0)
		return r;
	char missing[256];
	missing_ports(net, want, n, filtered, missing, sizeof(missing));
	if (missing[0]) {
		snprintf(line, sizeof(line), "not listed in the policy: %s", missing);
		if ((r = add(ud, "driver_ports_missing", line, true)) < 0)
			return r;
	}

	if (filtered) {
		snprintf(line, sizeof(line),
		         "manual, httpProxy and sslProxy = 127.0.0.1:%u ($HTTPS_PROXY without "
		         "http://)",
		         (unsigned)net->proxy_port);
		if ((r = add(ud, "proxy_capability", line, false)) < 0)
			return r;
		return add(ud, "accept_insecure_certs",
		           "true: the proxy re-signs every HTTPS connection with the session CA, "
		           "which the browsers do not read from a bundle here; only because "
		           "nothing leaves without the proxy checking it",
		           false);
	}
	if ((r = add(ud, "proxy_capability", "none: there is no proxy", false)) < 0)
		return r;
	return add(ud, "accept_insecure_certs",
	           "false: without the proxy it would switch certificate checks off", false);
}
