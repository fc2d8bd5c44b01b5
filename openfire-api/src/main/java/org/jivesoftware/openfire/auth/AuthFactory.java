package org.jivesoftware.openfire.auth;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.auth.AuthFactory} (members mucscale uses). */
public class AuthFactory {

    public static AuthToken authenticate(String username, String password)
            throws UnauthorizedException, ConnectionException, InternalUnauthenticatedException {
        throw new UnsupportedOperationException("compile-only declaration");
    }
}
