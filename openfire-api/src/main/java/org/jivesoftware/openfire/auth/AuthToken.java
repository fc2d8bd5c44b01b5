package org.jivesoftware.openfire.auth;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.auth.AuthToken} (members mucscale uses). */
public class AuthToken {

    private AuthToken() {
    }

    public String getUsername() { return null; }
}
