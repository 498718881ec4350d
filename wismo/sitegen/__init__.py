"""The static report site: analysis dataclasses -> page dataclasses -> Jinja templates -> a folder of HTML.

Not named `site`: the standard library's `site` module would shadow it. Templates and static files
live in the repository's top-level `site/` folder (shipped as `wismo/site/` in the wheel).
"""

from wismo.sitegen.build import build_site
from wismo.sitegen.errors import ReviewsError, SiteError
from wismo.sitegen.reviews import ReviewEntry, ReviewTally, fold_reviews, load_reviews, review_key, summary_sha

__all__ = ["ReviewEntry", "ReviewTally", "ReviewsError", "SiteError", "build_site", "fold_reviews", "load_reviews",
           "review_key", "summary_sha"]
