package org.mucscale.engine.muc;

/** Who may send private messages in a room ({@code muc#roomconfig_allowpm}), by the sender's role. */
enum PrivateMessagePolicy {
    ANYONE("anyone"),
    PARTICIPANTS("participants"),
    MODERATORS("moderators"),
    NONE("none");

    private final String xmlName;

    PrivateMessagePolicy(String xmlName) {
        this.xmlName = xmlName;
    }

    /** The form's (and the stored room's) spelling. */
    String xmlName() {
        return xmlName;
    }

    /** The policy spelled {@code s}, or null when it is no policy's name. */
    static PrivateMessagePolicy fromXml(String s) {
        for (PrivateMessagePolicy p : values()) {
            if (p.xmlName.equals(s)) {
                return p;
            }
        }
        return null;
    }

    /**
     * The policy of a stored or replicated room: absent means the default ({@link #ANYONE}); a value no policy spells
     * allows nobody, as the string comparison this enum replaced did.
     */
    static PrivateMessagePolicy fromStored(String s) {
        if (s == null) {
            return ANYONE;
        }
        PrivateMessagePolicy p = fromXml(s);
        return p == null ? NONE : p;
    }
}
