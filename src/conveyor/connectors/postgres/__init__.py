"""PostgreSQL connectors: change data capture, a polling JDBC source and a JDBC sink, sharing one
connection module and one type mapping."""
