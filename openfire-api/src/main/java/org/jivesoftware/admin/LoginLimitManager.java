package org.jivesoftware.admin;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.admin.LoginLimitManager} (members mucscale uses). */
public class LoginLimitManager {

    private LoginLimitManager() {
    }

    public static LoginLimitManager getInstance() {
        throw new UnsupportedOperationException("compile-only declaration");
    }

    public boolean hasHitConnectionLimit(String username, String address) { return false; }

    public void recordFailedAttempt(String username, String address) { }

    public void recordSuccessfulAttempt(String username, String address) { }
}
