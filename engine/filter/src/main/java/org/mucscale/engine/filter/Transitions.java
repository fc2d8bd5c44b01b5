package org.mucscale.engine.filter;

import java.util.Arrays;

/**
 * Open-addressing map (state, symbol) → state for the trie's goto edges. Written only while compiling; read-only and
 * shared by all scanning threads afterwards.
 */
final class Transitions {

    private long[] keys;
    private int[] values;
    private int size;
    private int mask;

    Transitions(int expected) {
        int cap = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
        keys = new long[cap];
        values = new int[cap];
        Arrays.fill(keys, -1L);
        mask = cap - 1;
    }

    private static long key(int state, int symbol) {
        return ((long) state << 16) | symbol;
    }

    private static int slot(long key, int mask) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }

    /** The target, or -1. */
    int get(int state, int symbol) {
        long k = key(state, symbol);
        int i = slot(k, mask);
        long[] ks = keys;
        while (true) {
            long x = ks[i];
            if (x == k) {
                return values[i];
            }
            if (x == -1L) {
                return -1;
            }
            i = (i + 1) & mask;
        }
    }

    void put(int state, int symbol, int target) {
        if ((size + 1) * 2 > keys.length) {
            grow();
        }
        long k = key(state, symbol);
        int i = slot(k, mask);
        while (keys[i] != -1L && keys[i] != k) {
            i = (i + 1) & mask;
        }
        if (keys[i] == -1L) {
            size++;
        }
        keys[i] = k;
        values[i] = target;
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new int[oldKeys.length * 2];
        Arrays.fill(keys, -1L);
        mask = keys.length - 1;
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != -1L) {
                put((int) (oldKeys[i] >>> 16), (int) (oldKeys[i] & 0xFFFF), oldValues[i]);
            }
        }
    }
}
