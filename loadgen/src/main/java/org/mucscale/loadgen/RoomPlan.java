package org.mucscale.loadgen;

import java.util.Arrays;

/**
 * How many users go into each room. Either fixed-size rooms, or Zipf-skewed sizes: room k (1-based) gets a share
 * proportional to 1/k^s, optionally with room 1 forced to an explicit size (the reference load's 427) and the rest
 * Zipf-distributed over rooms 2..count. Rounding keeps the exact total (largest remainder), and every room keeps at
 * least two users so it can carry deliveries.
 */
public final class RoomPlan {
    private RoomPlan() {
    }

    public static int[] sizes(Scenario.Rooms rooms, int users) {
        return rooms.size() > 0 ? fixed(users, rooms.size()) : zipf(users, rooms.count(), rooms.zipfExponent(), rooms.largest());
    }

    /** Rooms of exactly {@code size}; a remainder of 2 or more becomes one smaller room, a remainder of 1 joins the last. */
    public static int[] fixed(int users, int size) {
        if (size < 2 || users < size) {
            throw new IllegalArgumentException("room size must be 2..users, was " + size + " for " + users + " users");
        }
        int n = users / size;
        int rem = users % size;
        int[] out = new int[rem >= 2 ? n + 1 : n];
        Arrays.fill(out, 0, n, size);
        if (rem >= 2) {
            out[n] = rem;
        } else if (rem == 1) {
            out[n - 1]++;
        }
        return out;
    }

    /** {@code count} rooms with Zipf(exponent) sizes summing to {@code users}; room 0 forced to largest when > 0. */
    public static int[] zipf(int users, int count, double exponent, int largest) {
        if (count < 1 || users < 2 * count) {
            throw new IllegalArgumentException("need at least two users per room: " + users + " users, " + count + " rooms");
        }
        if (count == 1) {
            return new int[] {users};
        }
        int[] out = new int[count];
        int from = 0;
        int total = users;
        if (largest > 0) {
            if (largest < 2 || users - largest < 2 * (count - 1)) {
                throw new IllegalArgumentException("largest room " + largest + " leaves too few users for " + (count - 1) + " more rooms");
            }
            out[0] = largest;
            from = 1;
            total = users - largest;
        }
        int m = count - from;
        double[] quota = new double[m];
        double weightSum = 0;
        for (int i = 0; i < m; i++) {
            quota[i] = 1.0 / Math.pow(i + 1 + from, exponent);
            weightSum += quota[i];
        }
        int assigned = 0;
        double[] fraction = new double[m];
        for (int i = 0; i < m; i++) {
            double q = total * quota[i] / weightSum;
            out[from + i] = (int) Math.floor(q);
            fraction[i] = q - out[from + i];
            assigned += out[from + i];
        }
        // largest remainder: hand out what flooring lost, biggest fractions first (ties: lower index)
        for (int left = total - assigned; left > 0; left--) {
            int best = 0;
            for (int i = 1; i < m; i++) {
                if (fraction[i] > fraction[best]) {
                    best = i;
                }
            }
            out[from + best]++;
            fraction[best] = -1;
        }
        // every room at least two: take from the currently biggest Zipf room
        for (int i = from; i < count; i++) {
            while (out[i] < 2) {
                int donor = from;
                for (int j = from; j < count; j++) {
                    if (out[j] > out[donor]) {
                        donor = j;
                    }
                }
                out[donor]--;
                out[i]++;
            }
        }
        return out;
    }
}
