package org.jivesoftware.openfire.muc;

import java.util.List;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.muc.MultiUserChatManager} (members mucscale uses). */
public class MultiUserChatManager {

    public MultiUserChatService getMultiUserChatService(final String subdomain) { return null; }

    public List<MultiUserChatService> getMultiUserChatServices() { return null; }

    public boolean isServiceRegistered(final String subdomain) { return false; }
}
