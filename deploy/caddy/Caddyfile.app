# 룰사전 (the live app, `python -m app serve` or the compose service) behind Caddy, with HTTPS.
#
# Caddy gets and renews the certificate for the name on its own: the name's DNS must point at
# this box, and ports 80 and 443 must reach it. The app listens on loopback only (the default,
# or compose's "127.0.0.1:8000:8000") and is told where it is published:
#
#   RULES_PUBLIC_BASE_URL=https://rules.example.org   (its host is then the one allowed)
#   RULES_TRUSTED_PROXIES=127.0.0.1                    (compose: the network's range, see compose.yaml)
#
# Install (Debian): apt-get install caddy, put this file at /etc/caddy/Caddyfile with your name,
# then systemctl reload caddy. tests/test_deploy.py runs it in front of the real app.
{
	servers {
		# The app's own request bounds (app/web/limits.py): the head within 10 s.
		timeouts {
			read_header 10s
			idle 30s
		}
		max_header_size 16KB
	}
}

rules.example.org {
	encode gzip
	# Only POST /settings takes a body, a few checkbox values: at most 4 KiB.
	request_body {
		max_size 4KB
	}
	# Caddy passes Host on and sets X-Forwarded-For, -Proto and -Host itself (the client's
	# own are replaced, since the client is not a trusted proxy of Caddy's).
	reverse_proxy 127.0.0.1:8000
}
