"""Human rendering of results: workload trees and tables, topology, NUMA, and the placement picture (HTML)."""
