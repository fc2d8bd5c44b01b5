package org.jivesoftware.openfire.muc;

import org.xmpp.component.Component;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.muc.MultiUserChatService} (members mucscale uses). */
public interface MultiUserChatService extends Component {
    String getServiceDomain();

    String getServiceName();
}
