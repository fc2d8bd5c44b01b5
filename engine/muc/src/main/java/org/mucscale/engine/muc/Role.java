package org.mucscale.engine.muc;

import java.util.Locale;

/** XEP-0045 roles, ordered from least to most privileged. */
public enum Role {
    NONE, VISITOR, PARTICIPANT, MODERATOR;

    public String xmlName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Role fromXml(String s) {
        if (s == null) {
            return null;
        }
        return switch (s) {
            case "moderator" -> MODERATOR;
            case "participant" -> PARTICIPANT;
            case "visitor" -> VISITOR;
            case "none" -> NONE;
            default -> null;
        };
    }
}
