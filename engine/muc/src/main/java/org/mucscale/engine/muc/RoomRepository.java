package org.mucscale.engine.muc;

import java.util.Collection;
import java.util.List;

import org.mucscale.engine.stanza.Jid;

/**
 * Persistent rooms: configuration and affiliations. {@link #loadAll()} is called once by {@link MucService#start()};
 * {@link #save} and {@link #delete} are called on the service's room-store threads ({@link RoomStoreWorkers}), never
 * on a room thread, one write per room at a time, in the order of the room's changes. They may block on the database;
 * they throw when the write failed ({@link IllegalArgumentException}: the data can never be stored, not retried;
 * anything else is retried with the room's newest state) and should answer an interrupt (the service's stop).
 */
public interface RoomRepository {

    Collection<StoredRoom> loadAll();

    void save(StoredRoom room);

    void delete(Jid room);

    /**
     * A persistent room's most recent logged messages, oldest first, at most {@code max}: its history on join after a
     * restart, when the in-memory history is empty. Called once per stored room by {@link MucService#start()}.
     */
    default List<LoggedMessage> recentMessages(Jid room, int max) {
        return List.of();
    }

    /** A message from the room log, as history needs it. */
    record LoggedMessage(String stanzaId, String nick, long timestampMillis, String body) {
    }

    RoomRepository NONE = new RoomRepository() {
        @Override
        public Collection<StoredRoom> loadAll() {
            return List.of();
        }

        @Override
        public void save(StoredRoom room) {
        }

        @Override
        public void delete(Jid room) {
        }
    };
}
