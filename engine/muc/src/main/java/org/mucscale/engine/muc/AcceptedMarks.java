package org.mucscale.engine.muc;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.mucscale.engine.stanza.Jid;

/**
 * Per room, the newest forward handled from each link (owner, sender): the "accepted mark" of
 * docs/cluster-protocol.md (I5). A link hands a room's forwards to its room thread in link order, so every forward of
 * that link for that room at or below the mark has been handled here or by the owner the mark was adopted from. The
 * owner replicates the marks with the room's writes; a new owner adopts them with the room, and a forward that says
 * which earlier forward it repeats ({@link Command#origin}: a resend, or a stanza forwarded on) is skipped when the
 * mark covers it. One per room thread; touched by that thread only.
 */
final class AcceptedMarks {
    /**
     * Entries one room keeps at most; beyond, the links to owners other than the newest forward's go (they matter only
     * right after a move).
     */
    static final int LIMIT = 64;

    /** Room → link → {epoch, seq} of the newest forward handled on it. */
    private final Map<Jid, Map<String, Forwarded>> marks = new HashMap<>();
    /** Rooms whose marks changed since they were last replicated. */
    private final Set<Jid> changed = new LinkedHashSet<>();

    /** Whether the room handled {@code f} already (here, or at the owner its mark was adopted from). */
    boolean covers(Jid room, Forwarded f) {
        Map<String, Forwarded> m = marks.get(room);
        Forwarded newest = m == null ? null : m.get(f.link());
        return newest != null && newest.epoch() == f.epoch() && f.seq() <= newest.seq();
    }

    /** The room handled {@code f} (null: not a forward). */
    void note(Jid room, Forwarded f) {
        if (f == null) {
            return;
        }
        Map<String, Forwarded> m = marks.computeIfAbsent(room, r -> new HashMap<>());
        Forwarded old = m.get(f.link());
        if (old == null || old.epoch() != f.epoch() || old.seq() < f.seq()) {
            m.put(f.link(), f);
            if (m.size() > LIMIT) {
                m.values().removeIf(x -> !x.owner().equals(f.owner()));
            }
            changed.add(room);
        }
    }

    /** The room arrived here with its previous owner's marks (null: none, or none to trust). */
    void adopt(Jid room, AcceptedMark mark) {
        Map<String, Forwarded> m = new HashMap<>();
        if (mark != null) {
            for (Forwarded f : mark.newest()) {
                m.put(f.link(), f);
            }
        }
        marks.put(room, m);
    }

    /** The room left this node (moved away or destroyed). */
    void forget(Jid room) {
        marks.remove(room);
        changed.remove(room);
    }

    /** The marks changed since the last call, each with the room's newest tail record then ({@code tailSeqOf}). */
    List<AcceptedMark> takeChanged(java.util.function.ToLongFunction<Jid> tailSeqOf) {
        if (changed.isEmpty()) {
            return List.of();
        }
        List<AcceptedMark> out = new ArrayList<>(changed.size());
        for (Jid room : changed) {
            Map<String, Forwarded> m = marks.get(room);
            long tailSeq = tailSeqOf.applyAsLong(room);
            if (m != null && tailSeq >= 0) {
                out.add(new AcceptedMark(room, tailSeq, List.copyOf(m.values())));
            }
        }
        changed.clear();
        return out;
    }
}
