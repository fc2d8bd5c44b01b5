package org.jivesoftware.util;

import java.nio.file.Path;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.util.JiveGlobals} (members mucscale uses). */
public class JiveGlobals {

    public static Path getHomePath() { return null; }

    public static String getXMLProperty(String name) { return null; }

    public static String getProperty(String name) { return null; }

    public static String getProperty(String name, String defaultValue) { return defaultValue; }

    public static int getIntProperty(String name, int defaultValue) { return defaultValue; }

    public static long getLongProperty(String name, long defaultValue) { return defaultValue; }

    public static void setProperty(String name, String value) { }

    public static void setProperty(String name, String value, boolean encrypt) { }

    public static boolean isPropertyEncrypted(String name) { return false; }

    public static boolean setPropertyEncrypted(String name, boolean encrypt) { return false; }

    public static void deleteProperty(String name) { }
}
