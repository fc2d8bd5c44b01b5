package org.mucscale.engine.runtime.admin;

import java.nio.charset.StandardCharsets;

/** What an {@code Authorization} header of an admin API call presents: a shared secret, or an HTTP Basic pair. */
final class Credentials {
    private Credentials() {
    }

    /** User and password of an HTTP Basic header, or null when it is none (or has no user name). */
    static String[] basicPair(String authorization) {
        if (authorization == null) {
            return null;
        }
        String t = authorization.trim();
        if (!t.regionMatches(true, 0, "Basic ", 0, 6)) {
            return null;
        }
        try {
            String pair = new String(java.util.Base64.getDecoder().decode(t.substring(6).trim()),
                    StandardCharsets.UTF_8);
            int colon = pair.indexOf(':');
            return colon <= 0 ? null : new String[] {pair.substring(0, colon), pair.substring(colon + 1)};
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    static String presentedSecret(String authorization) {
        if (authorization == null || authorization.isBlank()) {
            return null;
        }
        String t = authorization.trim();
        if (t.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return t.substring(7).trim();
        }
        if (t.regionMatches(true, 0, "Basic ", 0, 6)) {
            try {
                String pair = new String(java.util.Base64.getDecoder().decode(t.substring(6).trim()),
                        StandardCharsets.UTF_8);
                int colon = pair.indexOf(':');
                return colon < 0 ? pair : pair.substring(colon + 1);
            } catch (IllegalArgumentException e) {
                return "";
            }
        }
        return t;
    }
}
