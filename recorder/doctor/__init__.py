"""`wismo doctor`: what an endpoint supports, and the record command to use with it."""
