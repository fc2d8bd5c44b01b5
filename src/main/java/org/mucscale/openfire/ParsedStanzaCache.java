package org.mucscale.openfire;

import java.io.StringReader;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import org.dom4j.Document;
import org.dom4j.DocumentException;
import org.dom4j.Element;
import org.dom4j.Node;
import org.dom4j.io.SAXReader;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;

/**
 * Turns the engine's rendered stanzas into dom4j elements for Openfire, parsing each rendered stanza once and
 * handing out a copy per recipient with only {@code to} changed.
 *
 * <p>Why it exists: a profile of a join storm inside Openfire 5.1.1 (80 users entering one room) showed 44 % of the
 * server's CPU in {@code DocumentHelper.parseText}, most of it building a new SAX parser per call (JAXP factory and
 * feature lookup through the class loaders), and the single shared "last parsed" entry that was here before missed
 * on every occupant presence a joiner receives (each occupant's presence is its own rendered stanza, reused for every
 * joiner) and, with several room threads, on every alternation between threads. Joins ran at about 10 per second.
 *
 * <p>Two bounded structures, both lock-free:
 * <ul>
 *   <li>a direct-mapped cache of {@link #slots} entries keyed by the rendered stanza's identity: an entry pairs the
 *       {@link RenderedStanza} with its parsed, frozen element. A collision replaces the entry (the evicted stanza is
 *       parsed again if it comes back); memory is bounded by the slot count (a few MB of small dom4j trees);</li>
 *   <li>a pool of {@link SAXReader}s (each reused, so its SAX parser is built once): a caller takes one by swapping a
 *       slot to null and puts it back into an empty slot; when every pooled reader is lent out it builds a new one
 *       (counted in {@link #readersCreated()}) and, if no slot is free afterwards, drops it. Overflow policy: allocate,
 *       never wait.</li>
 * </ul>
 *
 * <p>Concurrency: called from every room thread at once. Entries are immutable records published through an
 * {@link AtomicReferenceArray}; the cached element is "frozen" before publication (dom4j's {@code DefaultElement}
 * turns a single child or attribute into a list lazily, on first read, which would be a write racing between two
 * threads copying it), and afterwards it is only read: recipients always get copies. A race between two threads on
 * one slot only costs a second parse, never a wrong stanza, because a hit requires the identical source object.
 */
final class ParsedStanzaCache {
    /** Enough for every occupant presence of a large room plus the broadcasts in flight on all room threads. */
    static final int DEFAULT_SLOTS = 4096;
    /** At least the number of room threads (one per core by default) that parse at the same time. */
    static final int DEFAULT_READERS = 16;

    private record Entry(RenderedStanza source, Element element) {
    }

    private final AtomicReferenceArray<Entry> slots;
    private final int slotMask;
    private final AtomicReferenceArray<SAXReader> readers;
    private final int readerMask;
    private final LongAdder parses = new LongAdder();
    private final LongAdder readersCreated = new LongAdder();

    ParsedStanzaCache() {
        this(DEFAULT_SLOTS, DEFAULT_READERS);
    }

    /** Both sizes are rounded up to a power of two. */
    ParsedStanzaCache(int slotCount, int readerCount) {
        if (slotCount < 1 || readerCount < 1) {
            throw new IllegalArgumentException("slot and reader counts must be at least 1, were " + slotCount + " and "
                    + readerCount);
        }
        int s = powerOfTwoAtLeast(slotCount);
        int r = powerOfTwoAtLeast(readerCount);
        this.slots = new AtomicReferenceArray<>(s);
        this.slotMask = s - 1;
        this.readers = new AtomicReferenceArray<>(r);
        this.readerMask = r - 1;
    }

    static int powerOfTwoAtLeast(int n) {
        return n <= 1 ? 1 : Integer.highestOneBit(n - 1) << 1;
    }

    /**
     * A detached copy of {@code stanza} addressed to {@code recipient}, which the caller may modify and hand to
     * Openfire.
     *
     * @throws IllegalArgumentException when the rendered stanza is not well-formed XML
     */
    Element copyFor(RenderedStanza stanza, Jid recipient) {
        int slot = System.identityHashCode(stanza) & slotMask;
        Entry e = slots.get(slot);
        if (e != null && e.source == stanza) {
            Element copy = e.element.createCopy();
            copy.addAttribute("to", recipient.toString());
            return copy;
        }
        Element parsed = parse(stanza.forRecipient(recipient));
        freeze(parsed);
        slots.set(slot, new Entry(stanza, parsed));
        return parsed.createCopy();
    }

    /** Parses one serialized stanza with a pooled reader; the root comes back detached from its document. */
    Element parse(String xml) {
        int start = (int) Thread.currentThread().getId();
        SAXReader reader = borrow(start);
        Document doc;
        try {
            doc = reader.read(new StringReader(xml));
        } catch (DocumentException e) {
            // the reader is not returned: a parser that failed midway is not trusted with the next stanza
            throw new IllegalArgumentException("not a well-formed stanza: " + e.getMessage(), e);
        }
        giveBack(start, reader);
        parses.increment();
        Element root = doc.getRootElement();
        root.detach();
        return root;
    }

    private SAXReader borrow(int start) {
        for (int i = 0; i <= readerMask; i++) {
            int idx = (start + i) & readerMask;
            if (readers.get(idx) != null) {
                SAXReader r = readers.getAndSet(idx, null);
                if (r != null) {
                    return r;
                }
            }
        }
        readersCreated.increment();
        // createDefault: no external entities or DTDs, as DocumentHelper.parseText does
        return SAXReader.createDefault();
    }

    private void giveBack(int start, SAXReader reader) {
        for (int i = 0; i <= readerMask; i++) {
            if (readers.compareAndSet((start + i) & readerMask, null, reader)) {
                return;
            }
        }
    }

    /** Makes dom4j materialize its lazy content and attribute lists now, so later copies only read. */
    private static void freeze(Element e) {
        e.attributes();
        List<Node> content = e.content();
        for (int i = 0, n = content.size(); i < n; i++) {
            if (content.get(i) instanceof Element child) {
                freeze(child);
            }
        }
    }

    /** Rendered stanzas parsed so far (cache misses). */
    long parseCount() {
        return parses.sum();
    }

    /** SAX readers built so far (the pool's first fill plus overflow when all were lent out at once). */
    long readersCreated() {
        return readersCreated.sum();
    }

    int slotCount() {
        return slotMask + 1;
    }

    int readerCount() {
        return readerMask + 1;
    }
}
