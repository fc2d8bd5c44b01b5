package org.jivesoftware.openfire.admin;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.admin.AdminManager} (members mucscale uses). */
public class AdminManager {

    private AdminManager() {
    }

    public static AdminManager getInstance() {
        throw new UnsupportedOperationException("compile-only declaration");
    }

    public boolean isUserAdmin(String username, boolean allowAdminIfEmpty) { return false; }
}
