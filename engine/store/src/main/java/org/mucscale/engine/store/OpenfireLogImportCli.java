package org.mucscale.engine.store;

import com.zaxxer.hikari.HikariDataSource;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Map;

/**
 * {@code bin/mucscale-import-openfire-log}: copies Openfire's MUC conversation log into mucscale's room log, from a
 * stopped or running Openfire's database (any of mysql, mariadb, postgresql, hsqldb) to mucscale's. Exit status: 0
 * done (skipped rows are listed, not an error), 1 a database failure (re-run to continue), 2 bad arguments.
 */
public final class OpenfireLogImportCli {

    static final String USAGE = """
            usage: mucscale-import-openfire-log --source-url JDBC_URL [--source-user U] [--source-password-file F]
                                                --target-url JDBC_URL [--target-user U] [--target-password-file F]
                                                --domain XMPP_DOMAIN [--from-service conference]
                                                (--to-service SUBDOMAIN | --room NAME=NEW_ROOM_JID ...)
                                                [--room NAME[=NEW_ROOM_JID]]... [--batch-size 1000]
              --source-url          Openfire's database (its conf/openfire.xml <serverURL>); for the embedded
                                    database, stop Openfire and use jdbc:hsqldb:file:<openfireHome>/embedded-db/openfire
              --target-url          mucscale's database (mucscale.store.jdbc-url); may be the same as the source
              --*-password-file     a file holding the password (not on the command line, where ps shows it);
                                    the environment variables MUCSCALE_SOURCE_PASSWORD / MUCSCALE_TARGET_PASSWORD
                                    are read when no file is given
              --domain              the XMPP domain, e.g. example.org
              --from-service        the subdomain of Openfire's MUC service to read (default conference)
              --to-service          the mucscale subdomain: room@conference.example.org -> room@SUBDOMAIN.example.org
              --room NAME           import only this room (repeatable; default every room of --from-service);
                                    NAME=room@chat.example.org moves it to that address instead
              --batch-size N        source rows per committed page (default 1000)
            Re-running is safe: rows already imported are recognised and not inserted again.
            """;

    private OpenfireLogImportCli() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.getenv(), new PrintStream(System.out, true, StandardCharsets.UTF_8),
                new PrintStream(System.err, true, StandardCharsets.UTF_8)));
    }

    /** Runs the CLI; returns the exit status. */
    static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        String sourceUrl = null;
        String sourceUser = null;
        String sourcePassword = env.get("MUCSCALE_SOURCE_PASSWORD");
        String targetUrl = null;
        String targetUser = null;
        String targetPassword = env.get("MUCSCALE_TARGET_PASSWORD");
        OpenfireLogImport.Options options = new OpenfireLogImport.Options();
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--source-url" -> sourceUrl = value(args, ++i, a);
                    case "--source-user" -> sourceUser = value(args, ++i, a);
                    case "--source-password-file" -> sourcePassword = readPassword(value(args, ++i, a));
                    case "--target-url" -> targetUrl = value(args, ++i, a);
                    case "--target-user" -> targetUser = value(args, ++i, a);
                    case "--target-password-file" -> targetPassword = readPassword(value(args, ++i, a));
                    case "--domain" -> options.domain(value(args, ++i, a));
                    case "--from-service" -> options.fromService(value(args, ++i, a));
                    case "--to-service" -> options.toService(value(args, ++i, a));
                    case "--room" -> {
                        String v = value(args, ++i, a);
                        int eq = v.indexOf('=');
                        if (eq < 0) {
                            options.room(v);
                        } else {
                            options.room(v.substring(0, eq), v.substring(eq + 1));
                        }
                    }
                    case "--batch-size" -> options.batchSize(intValue(value(args, ++i, a), a));
                    case "-h", "--help" -> {
                        out.print(USAGE);
                        return 0;
                    }
                    default -> throw new IllegalArgumentException("unknown argument '" + a + "'");
                }
            }
            if (sourceUrl == null || targetUrl == null) {
                throw new IllegalArgumentException("--source-url and --target-url are required");
            }
            DatabaseType.fromJdbcUrl(sourceUrl);
            DatabaseType.fromJdbcUrl(targetUrl);
            options.validate();
        } catch (IllegalArgumentException e) {
            err.println("mucscale-import-openfire-log: " + e.getMessage());
            err.print(USAGE);
            return 2;
        }
        try (HikariDataSource source = StandaloneDataSource.create(sourceUrl, sourceUser, sourcePassword, 2);
             HikariDataSource target = sourceUrl.equals(targetUrl) ? null
                     : StandaloneDataSource.create(targetUrl, targetUser, targetPassword, 2)) {
            HikariDataSource into = target == null ? source : target;
            DatabaseType targetType = DatabaseType.detect(into);
            int before = SchemaInstaller.install(into, targetType);
            if (before == 0) {
                err.println("installed the mucscale schema (version " + SchemaInstaller.LATEST_VERSION + ") in "
                        + targetUrl);
            }
            OpenfireLogImport.Report report = new OpenfireLogImport(source, into, targetType, options, err::println)
                    .run();
            for (OpenfireLogImport.Problem p : report.problems()) {
                out.println("skipped or changed: " + p);
            }
            if (report.problemsNotListed() > 0) {
                out.println("... and " + report.problemsNotListed() + " more problems");
            }
            out.println(report);
            return 0;
        } catch (IllegalArgumentException e) {
            err.println("mucscale-import-openfire-log: " + e.getMessage());
            return 2;
        } catch (SQLException | RuntimeException e) {
            err.println("mucscale-import-openfire-log: database failure, nothing committed is lost; re-run to"
                    + " continue: " + e);
            return 1;
        }
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static int intValue(String v, String option) {
        try {
            return Integer.parseInt(v.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " must be a number, was '" + v + "'");
        }
    }

    private static String readPassword(String file) {
        try {
            return Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("cannot read password file " + file + ": " + e.getMessage());
        }
    }
}
