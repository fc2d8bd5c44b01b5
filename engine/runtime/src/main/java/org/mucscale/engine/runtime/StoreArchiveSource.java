package org.mucscale.engine.runtime;

import java.util.ArrayList;
import java.util.List;

import org.mucscale.engine.muc.RoomArchiveSource;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.store.ArchiveIdNotFoundException;
import org.mucscale.engine.store.ArchivePage;
import org.mucscale.engine.store.ArchiveRequest;
import org.mucscale.engine.store.RoomLogReader;
import org.mucscale.engine.store.RoomLogRecord;

/** The MUC engine's archive port, served by the room log's reader (stored rows merged with queued records). */
final class StoreArchiveSource implements RoomArchiveSource {
    private final RoomLogReader reader;

    StoreArchiveSource(RoomLogReader reader) {
        this.reader = reader;
    }

    @Override
    public Page query(Jid room, Query q) throws Exception {
        ArchivePage page;
        try {
            page = reader.archive(room.toString(), new ArchiveRequest(q.startMillis(), q.endMillis(), q.withNick(),
                    q.afterId(), q.beforeId(), q.pageAfter(), q.pageBefore(), q.lastPage(), q.ids(), q.max(),
                    q.count()));
        } catch (ArchiveIdNotFoundException e) {
            throw new UnknownIdException(e.stanzaId());
        }
        List<Message> out = new ArrayList<>(page.records().size());
        for (RoomLogRecord r : page.records()) {
            out.add(message(r));
        }
        return new Page(out, page.complete(), page.count());
    }

    @Override
    public Edges edges(Jid room) throws Exception {
        RoomLogRecord first = reader.archiveEdge(room.toString(), false);
        RoomLogRecord last = first == null ? null : reader.archiveEdge(room.toString(), true);
        return new Edges(first == null ? null : message(first), last == null ? null : message(last));
    }

    private static Message message(RoomLogRecord r) {
        return new Message(r.stanzaId(), r.senderNick(), r.senderJid(), r.logTimeMillis(), r.body(), r.subject(),
                r.stanza());
    }
}
