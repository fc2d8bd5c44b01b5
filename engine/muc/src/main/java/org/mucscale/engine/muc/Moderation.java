package org.mucscale.engine.muc;

import java.time.Instant;
import java.util.UUID;
import java.util.function.Consumer;

import org.mucscale.engine.muc.Stanzas.Condition;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * XEP-0425 message moderation for one room, on the room's thread: a moderator retracts a message by the stanza id the
 * room gave it (XEP-0359), with an optional reason. Every occupant receives the retraction; the room's history keeps a
 * tombstone in the message's place; the room log loses the text (see {@link RoomLogSink#retract}).
 *
 * <p>Both forms are accepted: the current one ({@code urn:xmpp:message-moderate:1}) and the older
 * {@code urn:xmpp:fasten:0} / {@code message-moderate:0} one, which Gajim and converse.js still send to rooms that
 * advertise it (and which their older installed versions only speak). One retraction message carries both forms, so
 * an occupant whose client knows only one of them still sees the message go (docs/moderation.md).
 *
 * <p>A message still in the room's memory is retracted at once (its log row follows on a store thread). An older one
 * is looked up in the log by its id on a store thread, never here; the result comes back as a command on this room's
 * thread, which then broadcasts and answers.
 */
final class Moderation {
    private static final Logger LOG = LoggerFactory.getLogger(Moderation.class);
    static final String NS_MODERATE = "urn:xmpp:message-moderate:1";
    static final String NS_RETRACT = "urn:xmpp:message-retract:1";
    static final String NS_MODERATE_0 = "urn:xmpp:message-moderate:0";
    static final String NS_RETRACT_0 = "urn:xmpp:message-retract:0";
    static final String NS_FASTEN = "urn:xmpp:fasten:0";
    /** A completion that found its room thread's queue full tries again after this. */
    private static final long REPOST_MS = 10;

    private final Room room;
    private final ServiceContext ctx;
    private final RoomShard shard;
    private final HistoryRing history;

    Moderation(Room room, RoomShard shard, HistoryRing history) {
        this.room = room;
        this.shard = shard;
        this.ctx = shard.ctx;
        this.history = history;
    }

    /** A request in either form: the stanza id to retract and the optional reason. */
    private record Request(String stanzaId, String reason) {
    }

    /** Whether this IQ payload is a moderation request (either form), for the room's IQ dispatch. */
    static boolean isRequest(XmlElement payload) {
        return NS_MODERATE.equals(payload.namespace()) || NS_FASTEN.equals(payload.namespace());
    }

    /** {@code <iq type='set'>} to the room with a moderation payload. */
    void handle(Command c, Occupant sender, XmlElement payload, boolean get) {
        Request request = get ? null : parse(payload);
        if (request == null) {
            Room.reply(ctx, c, Condition.BAD_REQUEST, "a moderation request is an IQ set: <moderate id='stanza id'"
                    + " xmlns='" + NS_MODERATE + "'><retract xmlns='" + NS_RETRACT + "'/></moderate>");
            return;
        }
        if (sender == null || !RoomPermissions.mayRetract(sender.role)) {
            Room.reply(ctx, c, Condition.FORBIDDEN, "only moderators may retract messages");
            return;
        }
        Actor actor = new Actor(sender.occupantJid.toString(), sender.occupantId);
        retract(request, actor, outcome -> {
            switch (outcome) {
                case RETRACTED, ALREADY_RETRACTED -> result(c);
                case NOT_FOUND -> Room.reply(ctx, c, Condition.ITEM_NOT_FOUND,
                        "no message with that id in this room");
                default -> throw new IllegalStateException(outcome.name());
            }
        }, () -> Room.reply(ctx, c, Condition.INTERNAL_SERVER_ERROR,
                "the room log could not be changed; try again"));
    }

    /**
     * A retraction by the service on an operator's behalf (the admin page's review queue), not by an occupant: the
     * retraction names the room itself as {@code by}. {@code done} gets the outcome on this room's thread, or null
     * when the room log could not be changed.
     */
    void retractAsService(String stanzaId, String reason, Consumer<RoomLogSink.Retraction> done) {
        retract(new Request(stanzaId, reason == null || reason.isBlank() ? null : reason),
                new Actor(room.jid.toString(), null), done, () -> done.accept(null));
    }

    /** Who retracts: the {@code by} address the occupants see, and its occupant id (null: none). */
    private record Actor(String by, String occupantId) {
    }

    /**
     * The retraction itself: in memory at once, else looked up in the log on a store thread. {@code answer} runs on
     * this thread once the occupants were told (RETRACTED), or with what was found otherwise; {@code failed} when the
     * log could not be changed.
     */
    private void retract(Request request, Actor actor, Consumer<RoomLogSink.Retraction> answer, Runnable failed) {
        long now = ctx.clock.currentTimeMillis();
        int i = history.indexOfStanzaId(request.stanzaId(), room.jid.toString());
        if (i >= 0) {
            XmlElement kept = history.message(i);
            if (isTombstone(kept)) {
                answer.accept(RoomLogSink.Retraction.ALREADY_RETRACTED); // nothing changes, nothing is sent again
                return;
            }
            XmlElement tombstone = tombstone(kept, actor.by(), actor.occupantId(), request.reason(), now);
            history.replace(i, tombstone, Stanzas.approximateChars(tombstone, Integer.MAX_VALUE));
            if (ctx.replication.active() && history.tailSeq(i) > 0) {
                String from = kept.attribute("from");
                shard.addTail(new TailRecord(room.jid, history.tailSeq(i), request.stanzaId(),
                        from.substring(from.indexOf('/') + 1), null, history.timestampMillis(i), null, null,
                        MessageInspector.Action.PASS, tombstone));
            }
            if (logged()) {
                retractLoggedRow(request, tombstone);
            }
            retracted(actor, request);
            answer.accept(RoomLogSink.Retraction.RETRACTED);
            return;
        }
        if (!logged()) {
            answer.accept(RoomLogSink.Retraction.NOT_FOUND);
            return;
        }
        // not in memory: the log knows, on a store thread; the outcome comes back to this thread
        lookUpAndRetract(request, actor, now, outcome -> {
            if (outcome == RoomLogSink.Retraction.RETRACTED) {
                retracted(actor, request);
            }
            answer.accept(outcome);
        }, failed);
    }

    private boolean logged() {
        return ctx.config.logAllRooms || room.settings().loggingEnabled();
    }

    /** The message known to the room: its log row follows, and a failure is logged (the occupants saw it go). */
    private void retractLoggedRow(Request request, XmlElement tombstone) {
        Jid roomJid = room.jid;
        run(() -> {
            try {
                ctx.logSink.retract(roomJid, request.stanzaId(), logged -> tombstone);
            } catch (Exception e) {
                LOG.error("mucscale: the room log row of message {} in {} could not be retracted: {}",
                        request.stanzaId(), roomJid, e.toString());
            }
        });
    }

    /** The message not in memory: looked up and retracted on a store thread, {@code done} back on this thread. */
    private void lookUpAndRetract(Request request, Actor actor, long now, Consumer<RoomLogSink.Retraction> done,
                                  Runnable failed) {
        Jid roomJid = room.jid;
        boolean occupantIds = ctx.config.occupantIds;
        run(() -> {
            RoomLogSink.Retraction outcome;
            try {
                outcome = ctx.logSink.retract(roomJid, request.stanzaId(), logged -> {
                    XmlElement.Builder m = XmlElement.builder("message")
                            .attribute("from", roomJid + "/" + logged.nick()).attribute("type", "groupchat");
                    if (occupantIds && logged.realJid() != null) {
                        m.child(XmlElement.builder("occupant-id", Stanzas.NS_OCCUPANT_ID).attribute("id",
                                ctx.occupantId(roomJid, Stanzas.userKey(logged.realJid()))).build());
                    }
                    m.child(XmlElement.builder("stanza-id", Stanzas.NS_SID).attribute("id", logged.stanzaId())
                            .attribute("by", roomJid.toString()).build());
                    return tombstone(m.build(), actor.by(), actor.occupantId(), request.reason(), now);
                });
            } catch (Exception e) {
                LOG.error("mucscale: message {} in {} could not be retracted from the room log: {}",
                        request.stanzaId(), roomJid, e.toString());
                post(s -> failed.run());
                return;
            }
            post(s -> done.accept(outcome));
        });
    }

    private void run(Runnable task) {
        RoomStoreWorkers workers = ctx.roomStoreWorkers;
        if (workers == null || !workers.execute(task)) {
            LOG.warn("mucscale: a retraction in {} was not handed to the room log (the service is stopping)",
                    room.jid);
        }
    }

    private void post(Consumer<RoomShard> task) {
        if (!shard.offer(new Command(task))) {
            RoomStoreWorkers workers = ctx.roomStoreWorkers;
            if (workers == null || workers.schedule(() -> post(task), REPOST_MS) == null) {
                LOG.debug("mucscale: a retraction's answer was dropped at stop");
            }
        }
    }

    /** Tells every occupant and counts it. */
    private void retracted(Actor actor, Request request) {
        room.messages.broadcastFromRoom(retraction(request, actor));
        ctx.listener.messageModerated(room.jid);
    }

    private void result(Command c) {
        ctx.delivery.send(Stanzas.result(c.stanza, c.to, c.from, null));
    }

    /**
     * {@code <moderate id='…'><retract/><reason/></moderate>} (:1) or {@code <apply-to id='…'><moderate><retract/>
     * <reason/></moderate></apply-to>} (:0); null when neither is complete.
     */
    private static Request parse(XmlElement payload) {
        XmlElement moderate;
        String id;
        if (NS_MODERATE.equals(payload.namespace()) && "moderate".equals(payload.name())) {
            moderate = payload;
            id = payload.attribute("id");
            if (moderate.child("retract", NS_RETRACT) == null) {
                return null;
            }
        } else if (NS_FASTEN.equals(payload.namespace()) && "apply-to".equals(payload.name())) {
            id = payload.attribute("id");
            moderate = payload.child("moderate", NS_MODERATE_0);
            if (moderate == null || moderate.child("retract", NS_RETRACT_0) == null) {
                return null;
            }
        } else {
            return null;
        }
        if (id == null || id.isBlank()) {
            return null;
        }
        String reason = moderate.childText("reason");
        return new Request(id, reason == null || reason.isBlank() ? null : reason);
    }

    /** The retraction every occupant receives: the :1 form and the :0 form in one message. */
    private XmlElement retraction(Request request, Actor actor) {
        String by = actor.by();
        XmlElement.Builder moderated = XmlElement.builder("moderated", NS_MODERATE).attribute("by", by);
        if (actor.occupantId() != null) {
            moderated.child(XmlElement.builder("occupant-id", Stanzas.NS_OCCUPANT_ID)
                    .attribute("id", actor.occupantId()).build());
        }
        XmlElement.Builder retract = XmlElement.builder("retract", NS_RETRACT).attribute("id", request.stanzaId())
                .child(moderated.build());
        XmlElement.Builder moderated0 = XmlElement.builder("moderated", NS_MODERATE_0).attribute("by", by)
                .child(XmlElement.builder("retract", NS_RETRACT_0).build());
        if (request.reason() != null) {
            retract.textChild("reason", request.reason());
            moderated0.textChild("reason", request.reason());
        }
        return XmlElement.builder("message").attribute("from", room.jid.toString()).attribute("type", "groupchat")
                .attribute("id", UUID.randomUUID().toString())
                .child(retract.build())
                .child(XmlElement.builder("apply-to", NS_FASTEN).attribute("id", request.stanzaId())
                        .child(moderated0.build()).build())
                .build();
    }

    /**
     * The message as the history and the archive keep it once retracted: its sender, occupant id and stanza id, and
     * in place of its content {@code <retracted stamp='…'><moderated by='…'/><reason/></retracted>} (XEP-0425 §6),
     * with the :0 tombstone beside it for clients that know only that.
     */
    static XmlElement tombstone(XmlElement original, String by, String moderatorOccupantId, String reason,
                                long nowMillis) {
        String stamp = Instant.ofEpochMilli(nowMillis).toString();
        XmlElement.Builder moderated = XmlElement.builder("moderated", NS_MODERATE).attribute("by", by);
        if (moderatorOccupantId != null) {
            moderated.child(XmlElement.builder("occupant-id", Stanzas.NS_OCCUPANT_ID)
                    .attribute("id", moderatorOccupantId).build());
        }
        XmlElement.Builder retracted = XmlElement.builder("retracted", NS_RETRACT).attribute("stamp", stamp)
                .child(moderated.build());
        XmlElement.Builder moderated0 = XmlElement.builder("moderated", NS_MODERATE_0).attribute("by", by)
                .child(XmlElement.builder("retracted", NS_RETRACT_0).attribute("stamp", stamp).build());
        if (reason != null) {
            retracted.textChild("reason", reason);
            moderated0.textChild("reason", reason);
        }
        XmlElement.Builder m = XmlElement.builder("message");
        for (String a : new String[] {"from", "type", "id"}) {
            if (original.attribute(a) != null) {
                m.attribute(a, original.attribute(a));
            }
        }
        m.child(retracted.build()).child(moderated0.build());
        XmlElement oid = original.child("occupant-id", Stanzas.NS_OCCUPANT_ID);
        if (oid != null) {
            m.child(oid);
        }
        XmlElement sid = original.child("stanza-id", Stanzas.NS_SID);
        if (sid != null) {
            m.child(sid);
        }
        return m.build();
    }

    static boolean isTombstone(XmlElement message) {
        return message.child("retracted", NS_RETRACT) != null;
    }
}
