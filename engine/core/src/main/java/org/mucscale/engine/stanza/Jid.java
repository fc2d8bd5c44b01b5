package org.mucscale.engine.stanza;

/**
 * An XMPP address {@code local@domain/resource} (RFC 7622). Parsing checks the structural rules (part lengths,
 * characters forbidden in the local part, an empty part where one is required); the domain is lower-cased. Full
 * PRECIS/stringprep profiles are applied where nicknames and local parts enter the MUC service.
 */
public final class Jid {
    private static final int MAX_PART = 1023;

    private final String local;
    private final String domain;
    private final String resource;
    private final String text;

    private Jid(String local, String domain, String resource) {
        this.local = local;
        this.domain = domain;
        this.resource = resource;
        StringBuilder sb = new StringBuilder();
        if (local != null) {
            sb.append(local).append('@');
        }
        sb.append(domain);
        if (resource != null) {
            sb.append('/').append(resource);
        }
        this.text = sb.toString();
    }

    /** Parses an address; throws {@link InvalidJidException} naming what is wrong. */
    public static Jid parse(String s) {
        if (s == null || s.isEmpty()) {
            throw new InvalidJidException("an address must not be empty");
        }
        int slash = s.indexOf('/');
        String bare = slash < 0 ? s : s.substring(0, slash);
        String resource = slash < 0 ? null : s.substring(slash + 1);
        int at = bare.indexOf('@');
        String local = at < 0 ? null : bare.substring(0, at);
        String domain = at < 0 ? bare : bare.substring(at + 1);
        return of(local, domain, resource);
    }

    /** Parses, returning null instead of throwing. */
    public static Jid tryParse(String s) {
        try {
            return parse(s);
        } catch (InvalidJidException e) {
            return null;
        }
    }

    public static Jid of(String local, String domain, String resource) {
        if (local != null) {
            checkPart("local part", local);
            for (int i = 0; i < local.length(); i++) {
                char c = local.charAt(i);
                if (c == '"' || c == '&' || c == '\'' || c == '/' || c == ':' || c == '<' || c == '>' || c == '@'
                        || Character.isWhitespace(c) || Character.isISOControl(c)) {
                    throw new InvalidJidException("the local part must not contain '" + c + "'");
                }
            }
        }
        if (domain == null || domain.isEmpty()) {
            throw new InvalidJidException("the domain must not be empty");
        }
        checkPart("domain", domain);
        for (int i = 0; i < domain.length(); i++) {
            char c = domain.charAt(i);
            if (Character.isWhitespace(c) || Character.isISOControl(c) || c == '@' || c == '/') {
                throw new InvalidJidException("the domain must not contain '" + c + "'");
            }
        }
        if (resource != null) {
            checkPart("resource", resource);
            for (int i = 0; i < resource.length(); i++) {
                if (Character.isISOControl(resource.charAt(i))) {
                    throw new InvalidJidException("the resource must not contain control characters");
                }
            }
        }
        return new Jid(local, domain.toLowerCase(java.util.Locale.ROOT), resource);
    }

    private static void checkPart(String what, String part) {
        if (part.isEmpty()) {
            throw new InvalidJidException("the " + what + " must not be empty");
        }
        if (part.length() > MAX_PART) {
            throw new InvalidJidException("the " + what + " must be at most " + MAX_PART + " characters");
        }
        for (int i = 0; i < part.length(); i++) {
            char c = part.charAt(i);
            if (Character.isSurrogate(c)) {
                boolean paired = Character.isHighSurrogate(c) && i + 1 < part.length()
                        && Character.isLowSurrogate(part.charAt(i + 1));
                if (!paired) {
                    throw new InvalidJidException("the " + what + " contains a lone surrogate");
                }
                i++;
            }
        }
    }

    public String local() { return local; }
    public String domain() { return domain; }
    public String resource() { return resource; }

    public boolean isBare() { return resource == null; }

    public Jid bare() {
        return resource == null ? this : new Jid(local, domain, null);
    }

    public Jid withResource(String newResource) {
        return of(local, domain, newResource);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Jid j && text.equals(j.text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    @Override
    public String toString() {
        return text;
    }

    /** Thrown for a malformed address; the message says which rule was broken. */
    public static final class InvalidJidException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        public InvalidJidException(String message) {
            super(message);
        }
    }

}
