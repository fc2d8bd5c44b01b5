package org.jivesoftware.admin;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.admin.AuthCheckFilter} (members mucscale uses). */
public class AuthCheckFilter {

    public static void addExclude(String exclude) { }

    public static void removeExclude(String exclude) { }
}
