package org.mucscale.engine.muc;

import java.util.List;

import org.mucscale.engine.stanza.Jid;

/**
 * Where a room's archive (XEP-0313) is read: the room log. Called on the service's archive threads
 * ({@code mucscale-archive-N}), never on a room thread; may block on the database. Must see every message the room
 * has accepted for logging, including those still queued for the database.
 */
public interface RoomArchiveSource {

    /**
     * One page of the room's messages in the range the query describes, oldest first.
     *
     * @throws UnknownIdException when an id the query names is not a message of this room
     * @throws Exception          the database failed (the requester gets internal-server-error)
     */
    Page query(Jid room, Query query) throws Exception;

    /** The room's oldest and newest archived messages (either null when the archive is empty). */
    Edges edges(Jid room) throws Exception;

    /**
     * An archive query: times are inclusive bounds in ms since the epoch ({@link Long#MIN_VALUE}/{@link Long#MAX_VALUE}
     * for none); {@code withNick} restricts to one sender nickname; {@code afterId}/{@code beforeId} are the form's
     * exclusive id bounds, {@code pageAfter}/{@code pageBefore} RSM's; {@code lastPage} asks for the page at the end
     * of the range (RSM {@code <before/>}); {@code ids} (or null) exactly these messages; {@code count} whether to
     * count the whole range.
     */
    record Query(long startMillis, long endMillis, String withNick, String afterId, String beforeId, String pageAfter,
                 String pageBefore, boolean lastPage, List<String> ids, int max, boolean count) {
    }

    /** A page, oldest first; {@code complete}: nothing beyond it in the paging direction; {@code count} or -1. */
    record Page(List<Message> messages, boolean complete, long count) {
    }

    /** The oldest and newest archived message of a room, each null when there is none. */
    record Edges(Message first, Message last) {
    }

    /**
     * One archived message as logged: {@code realJid} the sender's full JID or null; {@code stanzaXml} the message as
     * stored (e.g. a moderation tombstone) or null, in which case it is rendered from the other fields.
     */
    record Message(String stanzaId, String nick, String realJid, long timeMillis, String body, String subject,
                   String stanzaXml) {
    }

    /** The query named an id that is not a message of the room (XEP-0313: item-not-found). */
    final class UnknownIdException extends Exception {
        public UnknownIdException(String id) {
            super("no message with id '" + id + "' in this room's archive");
        }
    }

    /** No archive: every query finds nothing. */
    RoomArchiveSource NONE = new RoomArchiveSource() {
        @Override
        public Page query(Jid room, Query query) {
            return new Page(List.of(), true, query.count() ? 0 : -1);
        }

        @Override
        public Edges edges(Jid room) {
            return new Edges(null, null);
        }
    };
}
