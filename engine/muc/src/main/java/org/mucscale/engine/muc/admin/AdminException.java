package org.mucscale.engine.muc.admin;

/**
 * A refused room-administration request, with what was wrong in words an operator can act on. Nothing was changed
 * unless the text says so. {@link Problem} maps one-to-one onto the HTTP status every surface answers with.
 */
public final class AdminException extends RuntimeException {
    /** What kind of refusal; the HTTP status is the surfaces' mapping of it. */
    public enum Problem {
        /** Malformed input: a field, a JID, a value out of range (400). */
        BAD_REQUEST(400),
        /** No such room, occupant or service (404). */
        NOT_FOUND(404),
        /** The change contradicts the room's state: it exists, the last owner, one JID in two lists (409). */
        CONFLICT(409),
        /** XEP-0045 does not allow it (for instance kicking an admin or owner) (403). */
        NOT_ALLOWED(403),
        /** The room's thread is overloaded or the service is not ready: try again (503). */
        UNAVAILABLE(503),
        /** Another cluster node serves the room, or it is moving: nothing was changed here; try its owner (503). */
        ELSEWHERE(503);

        public final int httpStatus;

        Problem(int httpStatus) {
            this.httpStatus = httpStatus;
        }
    }

    private final Problem problem;

    public AdminException(Problem problem, String message) {
        super(message);
        this.problem = problem;
    }

    public Problem problem() {
        return problem;
    }
}
