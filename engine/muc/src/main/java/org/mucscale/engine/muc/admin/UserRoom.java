package org.mucscale.engine.muc.admin;

import java.util.List;

/**
 * A room a user is in or affiliated with: the user's affiliation there ("none" when it has none) and the nicknames of
 * the user's sessions in it (empty when not joined).
 */
public record UserRoom(String roomName, String affiliation, List<String> nicks) {
}
