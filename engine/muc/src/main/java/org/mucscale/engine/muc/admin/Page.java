package org.mucscale.engine.muc.admin;

import java.util.List;

/**
 * One page of a keyset-paged listing: the items after the key asked for, the total number of matches, and the key to
 * ask for the next page ({@code next}, null on the last page).
 */
public record Page<T>(List<T> items, int total, String next) {
}
