"""The domain every stage shares: the dataset's schema and loading, the evidence contract, the scorer.

`core.domain.fields` names the answer fields and the backends once; recorder (which serves and scores),
analysis (which re-scores and checks claims) and the site (which lays out evidence) all import them here.
"""
