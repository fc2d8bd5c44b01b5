package org.mucscale.engine.metrics;

import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Locale;

/**
 * Who may read the dashboard and the Prometheus endpoint: host-neutral rules the standalone HTTP server and the Openfire
 * servlets share. Tokens are compared in constant time; addresses are literals, never resolved.
 */
public final class MetricsAccess {

    private final MetricsConfig config;

    public MetricsAccess(MetricsConfig config) {
        this.config = config;
    }

    /**
     * May this request scrape Prometheus? Only when the endpoint is enabled, and then for an authenticated admin
     * ({@code adminAuthenticated}, from the host: Openfire's admin login, or the standalone server's own rule), a
     * request carrying the configured token, or a client in the allowed address list.
     */
    public boolean prometheusAllowed(InetAddress remote, String authorizationHeader, boolean adminAuthenticated) {
        if (!config.prometheusEnabled()) {
            return false;
        }
        return adminAuthenticated
                || tokenMatches(config.prometheusToken(), authorizationHeader)
                || config.prometheusAllowedAddresses().contains(remote);
    }

    /**
     * Standalone server: may this client open the dashboard and its data? Its address must be in the allowed list
     * and, when an HTTP token is set, the request must carry it (Bearer, or as the Basic password).
     */
    public boolean standaloneAllowed(InetAddress remote, String authorizationHeader) {
        if (!config.httpAllowedAddresses().contains(remote)) {
            return false;
        }
        return config.httpToken().isEmpty() || tokenMatches(config.httpToken(), authorizationHeader);
    }

    /**
     * A request a browser sent on behalf of another site: {@code Sec-Fetch-Site: cross-site}, or an {@code Origin}
     * whose host and port differ from the request's {@code Host}. Such requests are refused whatever they carry.
     */
    public static boolean isCrossSite(String originHeader, String secFetchSiteHeader, String hostHeader) {
        if (secFetchSiteHeader != null && secFetchSiteHeader.trim().toLowerCase(Locale.ROOT).equals("cross-site")) {
            return true;
        }
        if (originHeader == null || originHeader.isBlank()) {
            return false;
        }
        if (originHeader.trim().equals("null") || hostHeader == null) {
            return true;
        }
        try {
            URI origin = new URI(originHeader.trim());
            if (origin.getHost() == null) {
                return true;
            }
            String originHost = origin.getPort() < 0 ? origin.getHost() : origin.getHost() + ":" + origin.getPort();
            return !originHost.equalsIgnoreCase(hostHeader.trim());
        } catch (java.net.URISyntaxException e) {
            return true;
        }
    }

    /**
     * For a server bound to loopback: is the {@code Host} header a loopback name ({@code 127.0.0.1}, {@code localhost},
     * {@code [::1]}, with any port)? Anything else means a page on another name reached us, e.g. by DNS rebinding.
     */
    public static boolean isLoopbackHost(String hostHeader) {
        if (hostHeader == null) {
            return false;
        }
        String h = hostHeader.trim().toLowerCase(Locale.ROOT);
        String name;
        if (h.startsWith("[")) {
            int close = h.indexOf(']');
            if (close < 0) {
                return false;
            }
            name = h.substring(0, close + 1);
        } else {
            int colon = h.indexOf(':');
            name = colon < 0 ? h : h.substring(0, colon);
        }
        return name.equals("localhost") || name.equals("[::1]") || name.startsWith("127.") && AddressList.isIpLiteral(name);
    }

    /** Constant-time check of {@code Bearer <token>} or {@code Basic base64(user:token)} against {@code expected}. */
    static boolean tokenMatches(String expected, String authorizationHeader) {
        if (expected == null || expected.isEmpty() || authorizationHeader == null) {
            return false;
        }
        String h = authorizationHeader.trim();
        String presented;
        if (h.regionMatches(true, 0, "Bearer ", 0, 7)) {
            presented = h.substring(7).trim();
        } else if (h.regionMatches(true, 0, "Basic ", 0, 6)) {
            try {
                String decoded = new String(Base64.getDecoder().decode(h.substring(6).trim()), StandardCharsets.UTF_8);
                int colon = decoded.indexOf(':');
                presented = colon < 0 ? "" : decoded.substring(colon + 1);
            } catch (IllegalArgumentException e) {
                return false;
            }
        } else {
            return false;
        }
        return constantTimeEquals(expected, presented);
    }

    /** Compares secrets without leaking where they differ. */
    public static boolean constantTimeEquals(String expected, String presented) {
        if (expected == null || presented == null) {
            return false;
        }
        return MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8), presented.getBytes(StandardCharsets.UTF_8));
    }
}
