// Engram's local Neo4j: Neo4j Community embedded, with its Bolt server on.
//
// Run without a build step:  java -cp <neo4j jars> Launcher.java <home>
// <home>/neo4j.conf holds every setting (written by graph/store/local/server.py) and <home>/password
// the password of user `neo4j`. One line on stdout tells the parent the outcome:
//   ENGRAM-NEO4J READY <bolt-uri> <neo4j-version> <startup-ms>
//   ENGRAM-NEO4J FAILED <reason>
// SIGTERM (or SIGINT) shuts the database down cleanly through the shutdown hook.

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.neo4j.configuration.connectors.ConnectorPortRegister;
import org.neo4j.configuration.connectors.ConnectorType;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.kernel.internal.Version;

public class Launcher {
    static void setPassword(DatabaseManagementService dbms, String password) {
        try {
            dbms.database("system").executeTransactionally(
                    "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED",
                    Map.of("password", password));
        } catch (RuntimeException failure) {
            // Neo4j refuses to "change" a password to itself: then it is already right.
            if (!String.valueOf(failure.getMessage()).contains("Old password and new password cannot be the same")) {
                throw failure;
            }
        }
    }

    public static void main(String[] args) {
        if (args.length != 1) {
            System.out.println("ENGRAM-NEO4J FAILED usage: Launcher.java <home>");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        long started = System.nanoTime();
        CountDownLatch stopped = new CountDownLatch(1);
        DatabaseManagementService dbms;
        try {
            String password = Files.readString(home.resolve("password")).strip();
            dbms = new DatabaseManagementServiceBuilder(home)
                    .loadPropertiesFromFile(home.resolve("neo4j.conf"))
                    .build();
            final DatabaseManagementService running = dbms;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                running.shutdown();
                stopped.countDown();
            }, "engram-neo4j-shutdown"));
            // The password file is the source of truth: applying it on every start is idempotent
            // and heals a password changed behind Engram's back.
            setPassword(dbms, password);
            GraphDatabaseAPI db = (GraphDatabaseAPI) dbms.database("neo4j");
            var ports = db.getDependencyResolver().resolveDependency(ConnectorPortRegister.class);
            var bolt = ports.getLocalAddress(ConnectorType.BOLT);
            if (bolt == null) {
                throw new IllegalStateException("Bolt connector is not listening; check server.bolt.* in neo4j.conf");
            }
            long millis = (System.nanoTime() - started) / 1_000_000;
            System.out.println("ENGRAM-NEO4J READY bolt://" + bolt + " " + Version.getNeo4jVersion() + " " + millis);
            System.out.flush();
        } catch (Throwable failure) {
            System.out.println("ENGRAM-NEO4J FAILED " + failure.toString().replace('\n', ' '));
            failure.printStackTrace(System.out);
            System.out.flush();
            System.exit(1);
            return;
        }
        try {
            stopped.await();
        } catch (InterruptedException ignored) {
            Thread.currentThread().interrupt();
        }
    }
}
