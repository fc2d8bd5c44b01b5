package org.mucscale.engine.muc;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.Collections;

import org.mucscale.engine.muc.Stanzas.Condition;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

/**
 * Voice requests (XEP-0045 8.6): a visitor in a moderated room submits the {@code muc#request} form to the room, the
 * room forwards an approval form to every moderator, and a moderator's submitted form with {@code muc#request_allow}
 * true makes the visitor a participant (broadcast as a role change); false or absent refuses.
 *
 * <p>Runs on the room's thread only. A visitor has at most one request pending: a repeat before a moderator answered
 * is refused, so one visitor cannot flood the moderators; each forwarded request also spends the room's and the
 * user's invitation budgets ({@link FloodGuard#admitVoiceRequest}), because like an invitation it is a message the room
 * sends on a user's behalf. Pending requests are forgotten when the visitor leaves or its role changes.
 */
final class VoiceRequests {
    static final String FORM_TYPE = "http://jabber.org/protocol/muc#request";

    private final Room room;
    private final ServiceContext ctx;
    private final Set<Occupant> pending = Collections.newSetFromMap(new IdentityHashMap<>());

    VoiceRequests(Room room, ServiceContext ctx) {
        this.room = room;
        this.ctx = ctx;
    }

    /** Whether this data form is a voice request or a moderator's answer to one. */
    static boolean isRequestForm(XmlElement form) {
        for (XmlElement f : form.elements("field")) {
            if ("FORM_TYPE".equals(f.attribute("var"))) {
                return FORM_TYPE.equals(f.childText("value"));
            }
        }
        return false;
    }

    /** A message to the room carrying a {@code muc#request} form, from {@code sender} (null: not an occupant). */
    void handle(Command c, Occupant sender, XmlElement form) {
        if (sender == null) {
            Room.reply(ctx, c, Condition.NOT_ACCEPTABLE, "join the room before requesting voice");
            return;
        }
        String type = form.attribute("type");
        if ("cancel".equals(type)) {
            return; // a moderator skipped a request: the visitor stays a visitor, nothing to tell anyone
        }
        if (!"submit".equals(type)) {
            Room.reply(ctx, c, Condition.BAD_REQUEST, "a voice request form must be of type submit");
            return;
        }
        Map<String, String> fields = new HashMap<>();
        for (XmlElement f : form.elements("field")) {
            String var = f.attribute("var");
            if (var != null) {
                fields.put(var, f.childText("value"));
            }
        }
        if (sender.isModerator() && fields.containsKey("muc#roomnick")) {
            answer(c, sender, fields);
        } else {
            request(c, sender, fields);
        }
    }

    private void request(Command c, Occupant visitor, Map<String, String> fields) {
        if (!"participant".equals(fields.get("muc#role"))) {
            Room.reply(ctx, c, Condition.BAD_REQUEST, "a voice request must ask for muc#role participant");
            return;
        }
        if (visitor.role != Role.VISITOR) {
            return; // already has voice: nothing to ask the moderators (XEP-0045 8.6 is about visitors)
        }
        if (pending.contains(visitor)) {
            Room.reply(ctx, c, Condition.RESOURCE_CONSTRAINT, "your voice request is already with the moderators;"
                    + " wait for their answer");
            return;
        }
        int moderators = 0;
        for (int i = 0; i < room.occupantCount(); i++) {
            if (room.occupantAt(i).isModerator()) {
                moderators++;
            }
        }
        if (moderators == 0) {
            Room.reply(ctx, c, Condition.NOT_ACCEPTABLE, "no moderator is in the room to answer a voice request");
            return;
        }
        if (!room.guard.admitVoiceRequest(c, visitor)) {
            return;
        }
        pending.add(visitor);
        RenderedStanza approval = RenderedStanza.render(XmlElement.builder("message")
                .attribute("from", room.jid.toString())
                .child(approvalForm(visitor)).build());
        for (int i = 0; i < room.occupantCount(); i++) {
            Occupant o = room.occupantAt(i);
            if (o.isModerator()) {
                ctx.delivery.deliver(approval, o.realJid);
            }
        }
    }

    private static XmlElement approvalForm(Occupant visitor) {
        return XmlElement.builder("x", Stanzas.NS_DATA).attribute("type", "form")
                .textChild("title", "Voice request")
                .textChild("instructions", "To approve this request for voice, select the \"Grant voice to this"
                        + " person?\" checkbox and submit the form. To skip this request, cancel the form.")
                .child(Stanzas.formField("FORM_TYPE", "hidden", null, FORM_TYPE))
                .child(Stanzas.formField("muc#role", "list-single", "Requested role", "participant"))
                .child(Stanzas.formField("muc#jid", "jid-single", "User ID", visitor.realJid.toString()))
                .child(Stanzas.formField("muc#roomnick", "text-single", "Room Nickname", visitor.nick))
                .child(Stanzas.formField("muc#request_allow", "boolean", "Grant voice to this person?", "false"))
                .build();
    }

    private void answer(Command c, Occupant moderator, Map<String, String> fields) {
        String allowText = fields.get("muc#request_allow");
        boolean allow;
        if (allowText == null || "false".equals(allowText.trim()) || "0".equals(allowText.trim())) {
            allow = false;
        } else if ("true".equals(allowText.trim()) || "1".equals(allowText.trim())) {
            allow = true;
        } else {
            Room.reply(ctx, c, Condition.BAD_REQUEST, "muc#request_allow must be true, false, 1 or 0, was '"
                    + allowText + "'");
            return;
        }
        String nick = fields.get("muc#roomnick");
        Occupant visitor = nick == null ? null : room.occupant(nick);
        String jidText = fields.get("muc#jid");
        if (visitor == null || (jidText != null && !jidText.equals(visitor.realJid.toString())
                && !jidText.equals(visitor.bareJid.toString()))) {
            Room.reply(ctx, c, Condition.ITEM_NOT_FOUND, "the occupant who asked for voice is no longer in the room");
            return;
        }
        pending.remove(visitor);
        if (allow && visitor.role == Role.VISITOR) {
            room.presence.grantVoice(visitor, moderator);
        }
    }

    /** The occupant left or its role changed by other means: its pending request is moot. */
    void settled(Occupant o) {
        pending.remove(o);
    }

    int pendingCount() {
        return pending.size();
    }
}
