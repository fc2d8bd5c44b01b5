/**
 * The multi-user chat service (XEP-0045) of mucscale, independent of any host.
 *
 * <p>Entry point: {@link org.mucscale.engine.muc.MucService} (built from a {@link org.mucscale.engine.muc.MucConfig},
 * itself read from {@link org.mucscale.engine.muc.MucSettings}). Ports a host may plug in, each with a no-op default:
 * {@link org.mucscale.engine.muc.MessageInspector} (content filter), {@link org.mucscale.engine.muc.RoomLogSink}
 * (message log), {@link org.mucscale.engine.muc.RoomRepository} (persistent rooms) and
 * {@link org.mucscale.engine.muc.MucListener} (metrics). Outbound stanzas go to core's
 * {@link org.mucscale.engine.port.Delivery}.
 *
 * <p>Concurrency in one paragraph: a small pool of room threads ({@code mucscale-room-N}), each the only writer of
 * the rooms hashed to it, each draining a bounded many-to-one queue filled by transport threads; a full queue is
 * answered with {@code resource-constraint}. Broadcasts are rendered once and spliced per recipient, with no lock
 * held while delivering.
 */
package org.mucscale.engine.muc;
