package org.mucscale.engine.muc;

import java.util.Locale;

/** XEP-0045 affiliations, ordered from least to most privileged (outcast lowest). */
public enum Affiliation {
    OUTCAST, NONE, MEMBER, ADMIN, OWNER;

    /** The attribute value ({@code owner}, {@code none} ...). */
    public String xmlName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses the attribute value; null when unknown. */
    public static Affiliation fromXml(String s) {
        if (s == null) {
            return null;
        }
        return switch (s) {
            case "owner" -> OWNER;
            case "admin" -> ADMIN;
            case "member" -> MEMBER;
            case "none" -> NONE;
            case "outcast" -> OUTCAST;
            default -> null;
        };
    }

    boolean atLeast(Affiliation other) {
        return compareTo(other) >= 0;
    }
}
