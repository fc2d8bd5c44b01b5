package org.mucscale.engine.cluster;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One room-thread flush's changes to the replicated maps (room images, tail records, the room directory, occupant
 * slots), merged by the {@link ReplicationWriter} into its round: a later put of a key replaces an earlier one, a
 * put after a removal of the same key revives it. {@code done} completes when the round that carried it is written.
 *
 * <p>Owner: the room thread that fills it, then the writer thread after {@link ReplicationWriter#submit} (handed over
 * under the writer's queue lock).
 */
final class ReplicationBatch {
        final Map<String, byte[]> roomPuts = new HashMap<>();
        final Map<String, byte[]> tailPuts = new HashMap<>();
        final Set<String> roomRemovals = new HashSet<>();
        final Set<String> tailRemovals = new HashSet<>();
        final Map<String, byte[]> listed = new HashMap<>();
        final Set<String> unlisted = new HashSet<>();
        final Map<String, byte[]> occupantPuts = new HashMap<>();
        final Set<String> occupantRemovals = new HashSet<>();
        final OccupantSlots.Changes occupantChanges = new OccupantSlots.Changes() {
            @Override
            public void put(String key, byte[] value) {
                occupantRemovals.remove(key);
                occupantPuts.put(key, value);
                bytes += value.length;
            }

            @Override
            public void remove(String key) {
                occupantPuts.remove(key);
                occupantRemovals.add(key);
            }
        };
        final CompletableFuture<Void> done = new CompletableFuture<>();

        void list(String key, byte[] name) {
            unlisted.remove(key);
            listed.put(key, name);
        }

        void unlist(String key) {
            listed.remove(key);
            unlisted.add(key);
        }
        int bytes;

        void remove(String roomKey, List<String> tailKeys) {
            dropRoom(roomKey);
            tailKeys.forEach(this::dropTail);
        }

        private void dropRoom(String key) {
            roomPuts.remove(key);
            roomRemovals.add(key);
        }

        private void dropTail(String key) {
            tailPuts.remove(key);
            tailRemovals.add(key);
        }

        void putRoom(String key, byte[] value) {
            roomRemovals.remove(key);
            roomPuts.put(key, value);
            bytes += value.length;
        }

        void putTail(String key, byte[] value) {
            tailRemovals.remove(key);
            tailPuts.put(key, value);
            bytes += value.length;
        }

        void mergeLater(ReplicationBatch later) {
            later.roomRemovals.forEach(this::dropRoom);
            later.tailRemovals.forEach(this::dropTail);
            later.roomPuts.forEach(this::putRoom);
            later.tailPuts.forEach(this::putTail);
            later.unlisted.forEach(this::unlist);
            later.listed.forEach(this::list);
            later.occupantRemovals.forEach(occupantChanges::remove);
            later.occupantPuts.forEach(occupantChanges::put);
        }

        int entries() {
            return roomPuts.size() + tailPuts.size() + roomRemovals.size() + tailRemovals.size()
                    + occupantPuts.size() + occupantRemovals.size();
        }
    }
