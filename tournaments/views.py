from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def tournament_list(request: HttpRequest) -> HttpResponse:
    return render(request, "tournaments/list.html")
