package org.mucscale.engine.muc;

import java.time.Instant;
import java.time.format.DateTimeParseException;

import org.mucscale.engine.muc.Stanzas.Condition;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

import static org.mucscale.engine.muc.Stanzas.NS_MUC_USER;

/**
 * A room's messages: groupchat (limits, content filter, room log, fan-out, history, subject), private messages
 * between occupants, invitations and declines (XEP-0045 7.4, 7.5, 7.8), and the history and subject a joiner is
 * sent. Holds the in-memory history, the subject and the counter numbering the replicated tail.
 *
 * <p>Thread: owned by the room's shard thread ({@link RoomShard}); nothing here is synchronised.
 */
final class RoomMessages {
    private final Room room;
    private final Jid jid;
    private final RoomShard shard;
    private final ServiceContext ctx;
    private final Delivery delivery;
    private final Occupants occupants;
    final HistoryRing history;
    private final TokenBucket roomBucket;
    /** The subject as broadcast (from room/nick), or null when none was ever set. */
    private XmlElement subjectMessage;
    private String subject = "";
    /** Counter of accepted messages, numbering the room's replicated tail (clustering). */
    private long tailSeq;

    RoomMessages(Room room, RoomShard shard, Occupants occupants) {
        this.room = room;
        this.jid = room.jid;
        this.shard = shard;
        this.ctx = shard.ctx;
        this.delivery = ctx.delivery;
        this.occupants = occupants;
        this.history = new HistoryRing(ctx.config.historySize);
        this.roomBucket = new TokenBucket(ctx.config.roomBurst, ctx.clock.nanoTime());
    }

    String subject() {
        return subject;
    }

    XmlElement subjectMessage() {
        return subjectMessage;
    }

    /** A stored room's subject, as the room broadcasts it. */
    void restoreSubject(String stored) {
        subject = stored == null ? "" : stored;
        if (!subject.isEmpty()) {
            subjectMessage = XmlElement.builder("message").attribute("from", jid.toString())
                    .attribute("type", "groupchat").textChild("subject", subject).build();
        }
    }

    /** An adopted room's subject message, exactly as its previous owner broadcast it. */
    void adoptSubjectMessage(XmlElement message) {
        subjectMessage = message;
    }

    long tailSeq() {
        return tailSeq;
    }

    /** An adopted room continues its tail numbering after {@code seq}. */
    void tailSeqAtLeast(long seq) {
        tailSeq = Math.max(tailSeq, seq);
    }

    /** Refills the in-memory history of a restored room from the room log, so a restart does not empty it. */
    void restoreHistory() {
        if (ctx.config.historySize == 0) {
            return;
        }
        for (RoomRepository.LoggedMessage m : ctx.repository.recentMessages(jid, ctx.config.historySize)) {
            if (m.body() == null || m.nick() == null) {
                continue;
            }
            XmlElement.Builder b = XmlElement.builder("message")
                    .attribute("from", jid.toString() + "/" + m.nick()).attribute("type", "groupchat")
                    .textChild("body", m.body());
            if (m.stanzaId() != null) {
                b.child(XmlElement.builder("stanza-id", Stanzas.NS_SID).attribute("id", m.stanzaId())
                        .attribute("by", jid.toString()).build());
            }
            XmlElement message = b.build();
            history.add(message, m.timestampMillis(), Stanzas.approximateChars(message, Integer.MAX_VALUE));
        }
    }

    void sendHistory(Occupant o, XmlElement mucX) {
        int n = history.size();
        if (n == 0) {
            return;
        }
        XmlElement h = mucX == null ? null : mucX.child("history");
        int maxStanzas = Integer.MAX_VALUE;
        int maxChars = Integer.MAX_VALUE;
        long notBeforeMillis = Long.MIN_VALUE;
        if (h != null) {
            maxStanzas = parseLimit(h.attribute("maxstanzas"), maxStanzas);
            maxChars = parseLimit(h.attribute("maxchars"), maxChars);
            int seconds = parseLimit(h.attribute("seconds"), -1);
            if (seconds >= 0) {
                notBeforeMillis = ctx.clock.currentTimeMillis() - seconds * 1000L;
            }
            String since = h.attribute("since");
            if (since != null) {
                try {
                    notBeforeMillis = Math.max(notBeforeMillis, Instant.parse(since).toEpochMilli() + 1);
                } catch (DateTimeParseException e) {
                    // an unreadable date limits nothing; the join itself is valid
                }
            }
        }
        int first = n;
        int chars = 0;
        while (first > 0 && n - first < maxStanzas) {
            int i = first - 1;
            if (history.timestampMillis(i) < notBeforeMillis) {
                break;
            }
            chars += history.chars(i);
            if (chars > maxChars) {
                break;
            }
            first = i;
        }
        for (int i = first; i < n; i++) {
            XmlElement m = history.message(i);
            XmlElement delay = XmlElement.builder("delay", Stanzas.NS_DELAY).attribute("from", jid.toString())
                    .attribute("stamp", Instant.ofEpochMilli(history.timestampMillis(i)).toString()).build();
            delivery.send(m.toBuilder().attribute("to", o.realJid.toString()).child(delay).build());
        }
    }

    private static int parseLimit(String s, int absent) {
        if (s == null) {
            return absent;
        }
        try {
            return Math.max(0, Integer.parseInt(s.trim()));
        } catch (NumberFormatException e) {
            return absent;
        }
    }

    void sendSubject(Occupant o) {
        XmlElement m = subjectMessage != null ? subjectMessage
                : XmlElement.builder("message").attribute("from", jid.toString()).attribute("type", "groupchat")
                .child(XmlElement.builder("subject").build()).build();
        delivery.send(m.withAttribute("to", o.realJid.toString()));
    }

    void handle(Command c) {
        XmlElement s = c.stanza;
        String type = s.attribute("type");
        if ("error".equals(type)) {
            return;
        }
        Occupant sender = occupants.byRealJid(c.from);
        if (c.to.resource() != null) {
            privateMessage(c, sender, type);
            return;
        }
        if ("groupchat".equals(type)) {
            groupchat(c, sender);
            return;
        }
        XmlElement x = s.child("x", NS_MUC_USER);
        if (x != null && (x.child("invite") != null || x.child("decline") != null)) {
            invitation(c, sender, x);
            return;
        }
        XmlElement form = s.child("x", Stanzas.NS_DATA);
        if (form != null && VoiceRequests.isRequestForm(form)) {
            room.voiceRequests.handle(c, sender, form);
            return;
        }
        room.reply(c, Condition.NOT_ACCEPTABLE, "only groupchat messages and invitations may be sent to the room");
    }

    private void groupchat(Command c, Occupant sender) {
        XmlElement s = c.stanza;
        if (sender == null) {
            room.reply(c, Condition.NOT_ACCEPTABLE, "join the room before sending messages to it");
            return;
        }
        String body = ContentInspection.plainBody(s);
        XmlElement subjectElement = ContentInspection.plainSubject(s);
        String newSubject = subjectElement == null ? null : subjectElement.text();
        if (!RoomPermissions.maySpeak(sender.role)) {
            room.reply(c, Condition.FORBIDDEN, "visitors may not speak in this moderated room");
            return;
        }
        // a subject that comes with a body changes the room's subject only from those who may change it; from others
        // it is an ordinary message (XEP-0045 §8.1: a subject change carries no body)
        boolean maySetSubject = RoomPermissions.maySetSubject(sender.role, room.settings().participantsChangeSubject());
        if (subjectElement != null && body == null) {
            if (!maySetSubject) {
                room.reply(c, Condition.FORBIDDEN, "you may not change the subject of this room");
                return;
            }
        } else if (body == null && !ContentInspection.rendersOtherText(s)) {
            // chat states and other body-less content: rate-limited like messages (each is a full fan-out), then
            // broadcast, but neither filtered, logged nor kept in history
            if (withinLimits(c, sender, null, null)) {
                broadcastMessage(c, sender, s, false, null);
            }
            return;
        }
        if (!withinLimits(c, sender, body, newSubject)) {
            return;
        }
        MessageInspector.Verdict verdict = shard.content.inspectMessage(jid, sender.nick, sender.realJid, s);
        MessageInspector.Action action = verdict.action();
        if (action != MessageInspector.Action.PASS) {
            ctx.listener.filtered(jid, action);
            switch (action) {
                case REJECT -> {
                    room.reply(c, Condition.NOT_ACCEPTABLE, verdict.errorText() == null
                            ? "the message was refused by the content filter" : verdict.errorText());
                    return;
                }
                case DROP -> {
                    return;
                }
                case MASK -> {
                    if (body != null && verdict.body() != null) {
                        body = verdict.body();
                    }
                    if (newSubject != null && verdict.subject() != null) {
                        newSubject = verdict.subject();
                    }
                    s = shard.content.masked(s);
                }
                default -> {
                }
            }
        }
        accept(c, sender, s, body, newSubject, action, maySetSubject);
    }

    /**
     * A groupchat message past every check: logged (a full log refuses it), broadcast, added to the replicated tail and
     * the history, and, from one who may, made the room's subject.
     */
    private void accept(Command c, Occupant sender, XmlElement s, String body, String newSubject,
                        MessageInspector.Action action, boolean maySetSubject) {
        String stanzaId = ctx.stanzaIds.next();
        long nowMillis = ctx.clock.currentTimeMillis();
        if ((ctx.config.logAllRooms || room.settings().loggingEnabled() || room.settings().archivingEnabled())
                && !ctx.logSink.offer(stanzaId, jid, sender.nick, sender.realJid, nowMillis, body, newSubject,
                action)) {
            ctx.listener.logRefused(jid);
            room.reply(c, Condition.RESOURCE_CONSTRAINT, "the room log is full; try again shortly");
            return;
        }
        XmlElement sent = broadcastMessage(c, sender, s, true, stanzaId);
        tailSeq++;
        if (ctx.replication.active()) {
            shard.addTail(new TailRecord(jid, tailSeq, stanzaId, sender.nick, sender.realJid, nowMillis, body,
                    newSubject, action, sent));
        }
        if (body != null) {
            history.add(sent, nowMillis, Stanzas.approximateChars(sent, Integer.MAX_VALUE), tailSeq);
        }
        if (newSubject != null && maySetSubject) {
            subject = newSubject;
            subjectMessage = body == null ? sent : XmlElement.builder("message")
                    .attribute("from", sender.occupantJid.toString()).attribute("type", "groupchat")
                    .textChild("subject", newSubject).build();
            room.saveIfPersistent();
        }
    }

    /** Size, line and rate limits; moderators may be exempt from the rates. False when refused (reply sent). */
    private boolean withinLimits(Command c, Occupant sender, String body, String newSubject) {
        MucConfig cfg = ctx.config;
        int bytes = utf8Length(body) + utf8Length(newSubject);
        if (bytes > cfg.maxMessageBytes) {
            ctx.listener.floodRejected(jid, MucListener.FloodLimit.MESSAGE_SIZE);
            room.reply(c, Condition.POLICY_VIOLATION, "the message is too long: " + bytes + " bytes, at most "
                    + cfg.maxMessageBytes + " allowed");
            return false;
        }
        if (body != null) {
            int lines = 1;
            for (int i = 0, n = body.length(); i < n; i++) {
                if (body.charAt(i) == '\n') {
                    lines++;
                }
            }
            if (lines > cfg.maxMessageLines) {
                ctx.listener.floodRejected(jid, MucListener.FloodLimit.MESSAGE_LINES);
                room.reply(c, Condition.POLICY_VIOLATION, "the message has too many lines: " + lines + ", at most "
                        + cfg.maxMessageLines + " allowed");
                return false;
            }
        }
        if (cfg.moderatorsExempt && sender.isModerator()) {
            return true;
        }
        long now = ctx.clock.nanoTime();
        if (!sender.bucket.tryTake(now, cfg.occupantMessagesPerSecond, cfg.occupantBurst)) {
            ctx.listener.floodRejected(jid, MucListener.FloodLimit.OCCUPANT_RATE);
            room.reply(c, Condition.RESOURCE_CONSTRAINT, "you are sending too fast: at most "
                    + cfg.occupantMessagesPerSecond + " messages per second (burst " + cfg.occupantBurst + ")");
            return false;
        }
        if (!roomBucket.tryTake(now, cfg.roomMessagesPerSecond, cfg.roomBurst)) {
            ctx.listener.floodRejected(jid, MucListener.FloodLimit.ROOM_RATE);
            room.reply(c, Condition.RESOURCE_CONSTRAINT, "this room is receiving too many messages: at most "
                    + cfg.roomMessagesPerSecond + " per second; try again shortly");
            return false;
        }
        return true;
    }

    private static int utf8Length(String s) {
        if (s == null) {
            return 0;
        }
        int n = 0;
        for (int i = 0, len = s.length(); i < len; i++) {
            char ch = s.charAt(i);
            if (ch < 0x80) {
                n++;
            } else if (ch < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(ch)) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    /**
     * Builds the room's copy of a groupchat message once, renders it once and delivers it to every occupant
     * (the sender included: XEP-0045 reflection). Foreign stanza-ids claiming to be by this room are stripped.
     */
    private XmlElement broadcastMessage(Command c, Occupant sender, XmlElement original, boolean counted,
                                        String stanzaId) {
        XmlElement.Builder m = XmlElement.builder("message").attribute("from", sender.occupantJid.toString())
                .attribute("type", "groupchat");
        String id = original.attribute("id");
        if (id != null) {
            m.attribute("id", id);
        }
        for (Object child : original.children()) {
            if (child instanceof XmlElement e) {
                if (Stanzas.NS_SID.equals(e.namespace()) && jid.toString().equals(e.attribute("by"))) {
                    continue;
                }
                if ("x".equals(e.name()) && NS_MUC_USER.equals(e.namespace()) || Stanzas.isRoomAssigned(e)) {
                    continue;
                }
                m.child(e);
            }
        }
        if (sender.occupantId != null) {
            m.child(RoomPresence.occupantIdElement(sender));
        }
        if (stanzaId != null) {
            m.child(XmlElement.builder("stanza-id", Stanzas.NS_SID).attribute("id", stanzaId)
                    .attribute("by", jid.toString()).build());
        }
        XmlElement sent = m.build();
        RenderedStanza rendered = RenderedStanza.render(sent, counted ? c.arrivalNs : 0);
        occupants.deliverToAll(rendered);
        if (counted) {
            ctx.listener.messageDelivered(jid, c.arrivalNs, ctx.clock.nanoTime(), occupants.count());
        }
        return sent;
    }

    /** Room administration: when the newest message in memory was accepted (0: none). */
    long lastMessageMillis() {
        return history.size() == 0 ? 0 : history.timestampMillis(history.size() - 1);
    }

    /** Room administration: empties the in-memory history joiners are sent (the room log keeps its rows). */
    void clearHistory() {
        history.clear();
    }

    /** A message from the room itself to every occupant (a moderator's retraction), rendered once. */
    void broadcastFromRoom(XmlElement message) {
        occupants.deliverToAll(RenderedStanza.render(message, 0));
    }

    private void privateMessage(Command c, Occupant sender, String type) {
        if ("groupchat".equals(type)) {
            room.reply(c, Condition.BAD_REQUEST, "groupchat messages go to the room, not to an occupant");
            return;
        }
        if (sender == null) {
            room.reply(c, Condition.NOT_ACCEPTABLE, "join the room before sending private messages");
            return;
        }
        Occupant target = occupants.byNick(c.to.resource());
        if (target == null) {
            room.reply(c, Condition.ITEM_NOT_FOUND, "no occupant with that nickname");
            return;
        }
        if (!ctx.config.privateMessages
                || !RoomPermissions.mayPrivateMessage(room.settings().allowPrivateMessages(), sender.role)) {
            room.reply(c, Condition.NOT_ALLOWED, "private messages are not allowed in this room");
            return;
        }
        if (Stanzas.approximateChars(c.stanza, ctx.config.maxMessageBytes + 1024) > ctx.config.maxMessageBytes + 1024) {
            ctx.listener.floodRejected(jid, MucListener.FloodLimit.MESSAGE_SIZE);
            room.reply(c, Condition.POLICY_VIOLATION, "the message is too long");
            return;
        }
        if (!(ctx.config.moderatorsExempt && sender.isModerator())
                && !sender.bucket.tryTake(ctx.clock.nanoTime(), ctx.config.occupantMessagesPerSecond,
                ctx.config.occupantBurst)) {
            ctx.listener.floodRejected(jid, MucListener.FloodLimit.OCCUPANT_RATE);
            room.reply(c, Condition.RESOURCE_CONSTRAINT, "you are sending too fast: at most "
                    + ctx.config.occupantMessagesPerSecond + " messages per second");
            return;
        }
        XmlElement admitted = shard.content.admitPrivateMessage(c, jid, sender);
        if (admitted == null) {
            return;
        }
        XmlElement.Builder m = admitted.toBuilder().attribute("from", sender.occupantJid.toString())
                .attribute("to", target.realJid.toString());
        m.removeChildren("x").removeChildren("occupant-id");
        for (XmlElement e : admitted.elements()) {
            if (("x".equals(e.name()) && !NS_MUC_USER.equals(e.namespace()))
                    || ("occupant-id".equals(e.name()) && !Stanzas.isRoomAssigned(e))) {
                m.child(e);
            }
        }
        m.child(XmlElement.builder("x", NS_MUC_USER).build());
        if (sender.occupantId != null) {
            m.child(RoomPresence.occupantIdElement(sender));
        }
        XmlElement pm = m.build();
        delivery.send(pm);
        for (Occupant other = target.nextSession; other != null; other = other.nextSession) {
            delivery.send(pm.withAttribute("to", other.realJid.toString())); // every session of the nickname
        }
    }

    private void invitation(Command c, Occupant sender, XmlElement x) {
        XmlElement invite = x.child("invite");
        if (invite != null) {
            if (sender == null) {
                room.reply(c, Condition.NOT_ACCEPTABLE, "join the room before inviting others");
                return;
            }
            Jid invitee = Jid.tryParse(invite.attribute("to"));
            if (invitee == null) {
                room.reply(c, Condition.JID_MALFORMED, "the invitation needs a valid 'to' address");
                return;
            }
            if (!room.guard.admitInvite(c, sender)) {
                return;
            }
            XmlElement reason = shard.content.admitReason(c, jid, sender.nick, invite.child("reason"));
            if (reason == ContentInspection.REFUSED) {
                return; // before a members-only room makes the invitee a member
            }
            if (room.settings().membersOnly()) {
                if (!RoomPermissions.mayInvite(true, sender.affiliation)) {
                    room.reply(c, Condition.FORBIDDEN, "only admins may invite to this members-only room");
                    return;
                }
                if (!room.affiliationOf(invitee.bare()).atLeast(Affiliation.MEMBER)) {
                    room.admin.setAffiliation(invitee.bare(), Affiliation.MEMBER);
                }
            }
            XmlElement.Builder inv = XmlElement.builder("invite").attribute("from", c.from.toString());
            if (reason != null) {
                inv.child(reason);
            }
            XmlElement.Builder ux = XmlElement.builder("x", NS_MUC_USER).child(inv.build());
            if (room.settings().password() != null) {
                ux.textChild("password", room.settings().password());
            }
            delivery.send(XmlElement.builder("message").attribute("from", jid.toString())
                    .attribute("to", invitee.toString()).attribute("id", c.stanza.attribute("id"))
                    .child(ux.build()).build());
            room.invitations.relayed(c.from, invitee);
            return;
        }
        XmlElement decline = x.child("decline");
        String to = decline.attribute("to");
        Jid named = to == null ? null : Jid.tryParse(to);
        if (to != null && named == null) {
            room.reply(c, Condition.JID_MALFORMED, "the decline's 'to' is not a valid address");
            return;
        }
        Jid inviter = room.invitations.takeFor(c.from, named); // only real pending invitations: no reflection
        if (inviter == null) {
            room.guard.refuseDecline(c);
            return;
        }
        XmlElement reason = shard.content.admitReason(c, jid, sender == null ? null : sender.nick,
                decline.child("reason"));
        if (reason == ContentInspection.REFUSED) {
            return;
        }
        XmlElement.Builder dec = XmlElement.builder("decline").attribute("from", c.from.bare().toString());
        if (reason != null) {
            dec.child(reason);
        }
        delivery.send(XmlElement.builder("message").attribute("from", jid.toString())
                .attribute("to", inviter.toString())
                .child(XmlElement.builder("x", NS_MUC_USER).child(dec.build()).build()).build());
    }
}
