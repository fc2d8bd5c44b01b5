package org.mucscale.engine.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mucscale.engine.runtime.EngineFixture.SERVICE;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.muc.Affiliation;
import org.mucscale.engine.muc.PresencePolicy;
import org.mucscale.engine.muc.Role;
import org.mucscale.engine.muc.StoredRoom;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.store.DatabaseType;
import org.mucscale.engine.store.PersistentRoomStore;
import org.mucscale.engine.store.StandaloneDataSource;

/**
 * Registration state (XEP-0045 7.10/7.12) through the real schema on HSQLDB, which this work must not change: the
 * reserved nickname in the affiliation row's reason column, registration and member-list roles as room config keys.
 */
class StoreRoomRepositoryTest {
    @TempDir
    Path dir;
    HikariDataSource db;

    @BeforeEach
    void openDatabase() {
        db = StandaloneDataSource.create("jdbc:hsqldb:file:" + dir.resolve("db/mucscale") + ";shutdown=true", "SA", "",
                4);
    }

    @AfterEach
    void closeDatabase() {
        db.close();
    }

    private static StoredRoom room(Map<Jid, Affiliation> affs, boolean open, Set<Role> roles, Map<Jid, String> nicks) {
        return new StoredRoom(Jid.parse("keep@" + SERVICE), "Keep", "", "", true, false, true, null, 100, false, false,
                "anyone", false, PresencePolicy.FULL, affs, open, roles, nicks, null);
    }

    @Test
    void reservedNicks_registrationAndMemberListRoles_roundTrip_andFollowTheAffiliation() throws Exception {
        MucScaleEngine engine = MucScaleEngine.builder(SERVICE, EngineFixture.settings(dir.resolve("spill")),
                new RecordingDelivery()).database(db, DatabaseType.HSQLDB, true).build();
        engine.start();
        try {
            StoreRoomRepository repo = new StoreRoomRepository(engine.store());
            Jid bob = Jid.parse("bob@example.org");
            Jid alice = Jid.parse("alice@example.org");
            Map<Jid, Affiliation> affs = new LinkedHashMap<>();
            affs.put(alice, Affiliation.OWNER);
            affs.put(bob, Affiliation.MEMBER);
            StoredRoom saved = room(affs, true, EnumSet.of(Role.MODERATOR, Role.PARTICIPANT), Map.of(bob, "Bobby \u00e9"));
            repo.save(saved);
            assertThat(repo.loadAll()).containsExactly(saved);
            PersistentRoomStore.PersistentRoom row = engine.store().rooms().loadRoom("keep@" + SERVICE).orElseThrow();
            assertThat(row.affiliations()).contains(new PersistentRoomStore.Affiliation(bob.toString(), "member",
                    "Bobby \u00e9"), new PersistentRoomStore.Affiliation(alice.toString(), "owner", null));

            // a new nickname for the same member is written although the affiliation did not change
            StoredRoom renamed = room(affs, true, Set.of(), Map.of(bob, "Robert"));
            repo.save(renamed);
            assertThat(repo.loadAll()).containsExactly(renamed);

            // the reservation goes with the affiliation
            StoredRoom gone = room(Map.of(alice, Affiliation.OWNER), false, Set.of(), Map.of());
            repo.save(gone);
            assertThat(repo.loadAll()).containsExactly(gone);
        } finally {
            engine.close();
        }
    }
}
