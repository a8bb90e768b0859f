"""Places task loops on Spark executors, stops and watches them."""
