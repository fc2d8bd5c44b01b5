package org.mucscale.engine.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.InvalidSettingException;

class DatabaseTypeTest {

    @Test
    void fromJdbcUrl_supportedUrls_nameTheirType() {
        assertThat(DatabaseType.fromJdbcUrl("jdbc:hsqldb:file:db/mucscale;shutdown=true")).isEqualTo(DatabaseType.HSQLDB);
        assertThat(DatabaseType.fromJdbcUrl("jdbc:mysql://127.0.0.1/m")).isEqualTo(DatabaseType.MYSQL);
        assertThat(DatabaseType.fromJdbcUrl("jdbc:mariadb://127.0.0.1/m")).isEqualTo(DatabaseType.MARIADB);
        assertThat(DatabaseType.fromJdbcUrl("jdbc:postgresql://127.0.0.1/m")).isEqualTo(DatabaseType.POSTGRESQL);
    }

    @Test
    void fromJdbcUrl_otherDatabase_isRefusedNamingKeyAndValue() {
        assertThatThrownBy(() -> DatabaseType.fromJdbcUrl("jdbc:oracle:thin:@x"))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessage("mucscale.store.jdbc-url must be a jdbc:hsqldb:, jdbc:mysql:, jdbc:mariadb: or "
                        + "jdbc:postgresql: URL, was 'jdbc:oracle:thin:@x'");
    }

    @Test
    void fromOpenfireName_unsupported_listsTheSupportedOnes() {
        assertThat(DatabaseType.fromOpenfireName("MariaDB")).isEqualTo(DatabaseType.MARIADB);
        assertThatThrownBy(() -> DatabaseType.fromOpenfireName("oracle"))
                .hasMessageContaining("mysql, mariadb, postgresql and hsqldb");
    }
}
