package org.mucscale.engine.runtime;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.mucscale.engine.muc.Affiliation;
import org.mucscale.engine.muc.PresencePolicy;
import org.mucscale.engine.muc.Role;
import org.mucscale.engine.muc.RoomRepository;
import org.mucscale.engine.muc.StoredRoom;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.store.PersistentRoomStore;
import org.mucscale.engine.store.RoomLogRecord;
import org.mucscale.engine.store.RoomLogStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Persistent rooms in the database: the MUC engine's {@link StoredRoom} as key/value configuration plus affiliation
 * rows, and their recent messages from the room log as history after a restart. Called at start, and for writes on
 * the MUC service's room-store threads (never on a room thread); a failed write throws, and the caller retries.
 */
final class StoreRoomRepository implements RoomRepository {
    private static final Logger LOG = LoggerFactory.getLogger(StoreRoomRepository.class);

    private final PersistentRoomStore store;
    private final RoomLogStore log;

    StoreRoomRepository(RoomLogStore log) {
        this.store = log.rooms();
        this.log = log;
    }

    @Override
    public List<LoggedMessage> recentMessages(Jid room, int max) {
        try {
            List<LoggedMessage> out = new ArrayList<>();
            for (RoomLogRecord r : log.history(room.toString(), max, 0)) {
                out.add(new LoggedMessage(r.stanzaId(), r.senderNick(), r.logTimeMillis(), r.body()));
            }
            return out;
        } catch (SQLException e) {
            LOG.warn("mucscale: history of {} could not be read from the room log; it starts empty: {}", room,
                    e.getMessage());
            return List.of();
        }
    }

    @Override
    public Collection<StoredRoom> loadAll() {
        List<StoredRoom> out = new ArrayList<>();
        try {
            for (PersistentRoomStore.PersistentRoom r : store.loadAll()) {
                try {
                    out.add(fromStore(r));
                } catch (RuntimeException e) {
                    LOG.warn("mucscale: persistent room {} is not readable and was skipped: {}", r.roomJid(), e.toString());
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("mucscale: cannot load persistent rooms: " + e.getMessage(), e);
        }
        return out;
    }

    @Override
    public void save(StoredRoom room) {
        String jid = room.room().toString();
        try {
            store.saveRoom(jid, toConfig(room));
            // a registered user's reserved nickname is kept in its affiliation row's reason column: it belongs to the
            // affiliation (it goes when the affiliation goes), and the schema needs no change
            Map<String, PersistentRoomStore.Affiliation> wanted = new HashMap<>();
            room.affiliations().forEach((who, aff) -> wanted.put(who.toString(), new PersistentRoomStore.Affiliation(
                    who.toString(), aff.xmlName(), room.reservedNicks().get(who))));
            Map<String, PersistentRoomStore.Affiliation> existing = new HashMap<>();
            store.loadRoom(jid).ifPresent(r -> r.affiliations().forEach(a -> existing.put(a.jid(), a)));
            for (String who : existing.keySet()) {
                if (!wanted.containsKey(who)) {
                    store.removeAffiliation(jid, who);
                }
            }
            for (PersistentRoomStore.Affiliation a : wanted.values()) {
                if (!a.equals(existing.get(a.jid()))) {
                    store.setAffiliation(jid, a.jid(), a.affiliation(), a.reason());
                }
            }
        } catch (SQLException e) {
            // the room thread's hand-off logs it and retries with the room's newest state
            throw new IllegalStateException("the database refused the write: " + e.getMessage(), e);
        }
    }

    @Override
    public void delete(Jid room) {
        try {
            store.deleteRoom(room.toString());
        } catch (SQLException e) {
            throw new IllegalStateException("the database refused the deletion: " + e.getMessage(), e);
        }
    }

    static Map<String, String> toConfig(StoredRoom r) {
        Map<String, String> c = new LinkedHashMap<>();
        put(c, "name", r.name());
        put(c, "description", r.description());
        put(c, "subject", r.subject());
        c.put("public", Boolean.toString(r.isPublic()));
        c.put("moderated", Boolean.toString(r.moderated()));
        c.put("members-only", Boolean.toString(r.membersOnly()));
        put(c, "password", r.password());
        c.put("max-occupants", Integer.toString(r.maxOccupants()));
        c.put("non-anonymous", Boolean.toString(r.nonAnonymous()));
        c.put("participants-change-subject", Boolean.toString(r.participantsChangeSubject()));
        put(c, "allow-private-messages", r.allowPrivateMessages());
        c.put("logging", Boolean.toString(r.loggingEnabled()));
        c.put("presence-policy", r.presencePolicy().name());
        c.put("registration", Boolean.toString(r.registrationOpen()));
        StringBuilder roles = new StringBuilder();
        for (Role role : Role.values()) {
            if (r.memberListRoles().contains(role)) {
                roles.append(roles.length() == 0 ? "" : ",").append(role.xmlName());
            }
        }
        c.put("member-list-roles", roles.toString());
        if (r.archivingEnabled() != null) {
            c.put("archiving", r.archivingEnabled().toString());
        }
        return c;
    }

    static StoredRoom fromStore(PersistentRoomStore.PersistentRoom r) {
        Map<String, String> c = r.config();
        Map<Jid, Affiliation> affiliations = new LinkedHashMap<>();
        Map<Jid, String> reservedNicks = new LinkedHashMap<>();
        for (PersistentRoomStore.Affiliation a : r.affiliations()) {
            Affiliation aff = Affiliation.fromXml(a.affiliation());
            if (aff != null && aff != Affiliation.NONE) {
                affiliations.put(Jid.parse(a.jid()), aff);
                if (a.reason() != null && !a.reason().isEmpty() && aff != Affiliation.OUTCAST) {
                    reservedNicks.put(Jid.parse(a.jid()), a.reason());
                }
            }
        }
        Set<Role> memberListRoles = EnumSet.noneOf(Role.class);
        for (String role : c.getOrDefault("member-list-roles", "").split(",")) {
            Role parsed = Role.fromXml(role.trim());
            if (parsed != null && parsed != Role.NONE) {
                memberListRoles.add(parsed);
            }
        }
        return new StoredRoom(Jid.parse(r.roomJid()), c.get("name"), c.get("description"), c.get("subject"),
                bool(c, "public"), bool(c, "moderated"), bool(c, "members-only"), c.get("password"),
                Integer.parseInt(c.getOrDefault("max-occupants", "0")), bool(c, "non-anonymous"),
                bool(c, "participants-change-subject"), c.get("allow-private-messages"), bool(c, "logging"),
                PresencePolicy.valueOf(c.getOrDefault("presence-policy", PresencePolicy.values()[0].name())),
                affiliations, bool(c, "registration"), memberListRoles, reservedNicks,
                c.containsKey("archiving") ? Boolean.valueOf(c.get("archiving")) : null);
    }

    private static void put(Map<String, String> c, String key, String value) {
        if (value != null) {
            c.put(key, value);
        }
    }

    private static boolean bool(Map<String, String> c, String key) {
        return Boolean.parseBoolean(c.get(key));
    }
}
