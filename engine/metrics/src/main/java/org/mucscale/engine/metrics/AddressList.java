package org.mucscale.engine.metrics;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** A set of client IP addresses, parsed from a comma-separated list of literals (never resolved through DNS). */
public final class AddressList {

    private final Set<InetAddress> addresses;

    private AddressList(Set<InetAddress> addresses) {
        this.addresses = addresses;
    }

    /** Parses "127.0.0.1, ::1"; blank entries are skipped; anything but an IP literal is refused. */
    public static AddressList parse(String text) {
        List<InetAddress> parsed = new ArrayList<>();
        for (String part : splitComma(text)) {
            if (part.isEmpty()) {
                continue;
            }
            if (!isIpLiteral(part)) {
                throw new IllegalArgumentException("not an IP address literal: '" + part + "'");
            }
            parsed.add(literal(part));
        }
        return new AddressList(Set.copyOf(parsed));
    }

    public boolean contains(InetAddress address) {
        return address != null && addresses.contains(address);
    }

    public boolean isEmpty() {
        return addresses.isEmpty();
    }

    /** True for "1.2.3.4" and IPv6 literals such as "::1" or "[::1]"; false for host names. */
    static boolean isIpLiteral(String s) {
        if (s.isEmpty()) {
            return false;
        }
        String body = s.startsWith("[") && s.endsWith("]") ? s.substring(1, s.length() - 1) : s;
        if (body.indexOf(':') >= 0) {
            for (int i = 0; i < body.length(); i++) {
                char c = body.charAt(i);
                boolean hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
                if (!hex && c != ':' && c != '.') {
                    return false;
                }
            }
            return literal(body) != null;
        }
        int dots = 0;
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c == '.') {
                dots++;
            } else if (c < '0' || c > '9') {
                return false;
            }
        }
        return dots == 3 && literal(body) != null;
    }

    private static InetAddress literal(String s) {
        String body = s.startsWith("[") && s.endsWith("]") ? s.substring(1, s.length() - 1) : s;
        try {
            // Only literals reach here, so no DNS lookup happens.
            return InetAddress.getByName(body);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    static List<String> splitComma(String text) {
        List<String> parts = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= text.length(); i++) {
            if (i == text.length() || text.charAt(i) == ',') {
                parts.add(text.substring(start, i).trim());
                start = i + 1;
            }
        }
        return parts;
    }

    @Override
    public String toString() {
        return addresses.stream().map(InetAddress::getHostAddress).sorted().collect(Collectors.joining(","));
    }
}
