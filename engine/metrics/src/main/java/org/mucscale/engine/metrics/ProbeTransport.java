package org.mucscale.engine.metrics;

/**
 * How the end-to-end {@link Probe} reaches a room. The runtime implements it with an internal occupant that sends a
 * groupchat message through the real delivery path, and calls {@link Probe#onReceived} when that occupant receives a
 * groupchat message back.
 */
public interface ProbeTransport {
    /** Sends {@code body} as a groupchat message into {@code room}. May fail by throwing; the probe counts it. */
    void send(String room, String body);
}
