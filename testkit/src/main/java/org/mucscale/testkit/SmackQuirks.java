package org.mucscale.testkit;

/**
 * Smack 4.5.0-beta5's {@code StandardExtensionElementProvider} asserts that a namespace prefix is null or non-empty,
 * but the StAX parser it uses here reports the default namespace declaration with prefix "" — so with {@code -ea}
 * (Surefire's default) any unknown extension element that declares a default namespace kills Smack's reader thread.
 * Production Smack runs without assertions; tests turn them off for Smack's parsing packages only, before those
 * classes are loaded. Our own code keeps its assertions.
 */
public final class SmackQuirks {
    private SmackQuirks() {
    }

    public static void disableSmackParserAssertions() {
        ClassLoader loader = SmackQuirks.class.getClassLoader();
        loader.setPackageAssertionStatus("org.jivesoftware.smack.parsing", false);
        loader.setPackageAssertionStatus("org.jivesoftware.smack.util", false);
    }
}
