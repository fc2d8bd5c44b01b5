package org.jivesoftware.openfire.privacy;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.privacy.PrivacyList} (used only as a type). */
public class PrivacyList {

    private PrivacyList() {
    }
}
