package org.xmpp.packet;

import org.dom4j.Element;

/** Compile-only declaration of Tinder 2.1.0 {@code org.xmpp.packet.PacketError} (members mucscale uses). */
public class PacketError {

    public PacketError(Condition condition) {
        throw new UnsupportedOperationException("compile-only declaration");
    }

    public PacketError(Condition condition, Type type) {
        throw new UnsupportedOperationException("compile-only declaration");
    }

    public PacketError(Condition condition, Type type, String text) {
        throw new UnsupportedOperationException("compile-only declaration");
    }

    public PacketError(Condition condition, Type type, String text, String lang) {
        throw new UnsupportedOperationException("compile-only declaration");
    }

    public Type getType() { return null; }
    public Condition getCondition() { return null; }
    public String getText() { return null; }
    public Element getElement() { return null; }

    public enum Condition {
        bad_request, conflict, feature_not_implemented, forbidden, gone, internal_server_error, item_not_found,
        jid_malformed, not_acceptable, not_allowed, not_authorized, payment_required, recipient_unavailable, redirect,
        registration_required, remote_server_not_found, remote_server_timeout, resource_constraint,
        service_unavailable, subscription_required, undefined_condition, unexpected_request
    }

    public enum Type { cancel, continue_processing, modify, auth, wait }
}
